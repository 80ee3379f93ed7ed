"""Console commands: placement-api, placement-manage, placement-status."""
