"""Existing OpenStack clients driven against our server."""
