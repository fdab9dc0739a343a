"""Business packages: one per deployed Lambda. Each exports `BUSINESS = Business(...)`."""
