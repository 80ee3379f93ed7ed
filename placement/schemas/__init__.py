"""JSON schemas for request bodies and query strings, per microversion."""
