"""The public test kit: drive a business through the real Lambda handler, in-process, from a test.

Imported by tests only: the handler never imports it, and the build leaves it out of the package.
"""
