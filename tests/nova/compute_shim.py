"""Run ``nova-compute`` with Nova's live-migrating fake driver sized as a small host.

Nova's fake drivers report 1,000 vCPUs and 800 GB of RAM per host, sizes no
strategy threshold means anything against: watcher-tempest-plugin derives its
thresholds from a host's vCPUs and RAM, and writes one CPU series per vCPU.
Nova loads a driver only from its own package, so each compute of the cloud
runs this script with Nova's venv's Python instead of ``nova-compute``: it
sizes ``fake.FakeLiveMigrateDriver`` (16 vCPUs, 64 GiB of RAM, 1,000 GB of disk:
at Nova's default overcommit one host still takes every server the suite boots)
and then runs ``nova-compute``'s own ``main`` with the same arguments. It
imports nothing of ours: it runs in another project's interpreter.
"""

import sys

from nova.cmd import compute
from nova.virt import fake

fake.FakeLiveMigrateDriver.vcpus = 16
fake.FakeLiveMigrateDriver.memory_mb = 65536
fake.FakeLiveMigrateDriver.local_gb = 1000

if __name__ == "__main__":
    sys.argv[0] = "nova-compute"
    sys.exit(compute.main())
