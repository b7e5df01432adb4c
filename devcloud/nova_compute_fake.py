"""nova-compute with the fake driver, restartable on Nova 2023.1 and later.

Nova's fake driver names its node with a UUID drawn at random in each
process (oslo's uuidsentinel), and since 2023.1 nova-compute refuses to
start when the database then holds two records for its node ("Duplicate
compute node record found"). A real driver keeps its node UUID in
state_path/compute_id; here the UUID is derived from the node name, so the
fake compute comes back after a restart as the same node.
"""
import sys
import uuid

from nova.cmd import compute  # first: nova.cmd monkey-patches eventlet
from nova.virt import fake


class _StableUUIDs:
    def __getattr__(self, name):
        return str(uuid.uuid5(uuid.NAMESPACE_URL, "vtpmctl-devcloud/" + name))


fake.uuids = _StableUUIDs()

if __name__ == "__main__":
    sys.argv[0] = "nova-compute"
    sys.exit(compute.main())
