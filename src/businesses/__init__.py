"""Business packages: one per deployed Lambda. Each exports `BUSINESS = Business(...)`.

The package spans every `businesses/` directory on sys.path: `src/businesses/` ships in the Lambda package, and
`dev/businesses/` (on PYTHONPATH only locally and in tests) adds the never-deployed fixture businesses.
"""

from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)
