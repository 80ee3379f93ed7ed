"""Functional tests of resource classes and traits on real databases."""
