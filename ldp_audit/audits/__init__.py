"""Everything that judges: statistics, checks, reports. Depends on mechanisms and models, never the reverse."""
