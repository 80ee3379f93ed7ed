"""The sample files in ``etc/placement`` are what the generators make today.

Regenerate them with ``tox -e genconfig`` / ``tox -e genpolicy`` after
changing an option or a policy default.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ETC = os.path.join(ROOT, "etc", "placement")


@pytest.mark.parametrize(
    "tool,generator_conf,sample",
    [
        ("oslo-config-generator", "config-generator.conf", "placement.conf.sample"),
        ("oslopolicy-sample-generator", "policy-generator.conf", "policy.yaml.sample"),
    ],
)
def test_sample_is_up_to_date(tmp_path, tool, generator_conf, sample):
    fresh = tmp_path / sample
    subprocess.run(
        [
            os.path.join(os.path.dirname(sys.executable), tool),
            "--config-file",
            os.path.join(ETC, generator_conf),
            "--output-file",
            str(fresh),
        ],
        check=True,
        cwd=ROOT,
        timeout=120,
    )
    with open(os.path.join(ETC, sample)) as committed:
        assert fresh.read_text() == committed.read(), f"run: tox -e {tool_env(tool)}"


def tool_env(tool: str) -> str:
    return "genpolicy" if tool.startswith("oslopolicy") else "genconfig"
