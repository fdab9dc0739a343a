"""Make lint and the business checks: the import graph, manifests, skills."""
