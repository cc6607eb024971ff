"""Example of a user-written mechanism module audited by ldp-audit (see README.md here)."""
