"""HTTP handlers: one module per API area, each a set of Falcon resources."""
