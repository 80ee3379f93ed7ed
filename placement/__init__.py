"""A drop-in reimplementation of the OpenStack Placement API."""
