"""A business's tool contract as agents see it: `schema_lint` (what a strict planner chokes on) and `diff` (what
changed since a release, and whether it breaks the agents built on it). `make schema-lint`, `make contract-diff`."""
