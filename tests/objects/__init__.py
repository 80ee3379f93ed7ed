"""Tests of ``placement/objects/``: the object layer called directly, on real databases."""
