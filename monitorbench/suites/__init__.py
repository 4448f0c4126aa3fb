"""Suites: frozen task sets with public and hidden parts, built from real task sources."""
