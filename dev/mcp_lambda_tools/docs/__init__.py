"""Generated documentation: the settings tables of docs/configuration.md."""
