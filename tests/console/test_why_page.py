"""The "why no candidate?" page in Chromium: each rule's explanation shown for
a request it fails, candidates for one that succeeds, the form round trip."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import rig, server
from tests.console import seed

UNKNOWN = "0d5c7f5e-2a43-4a3c-9c55-7a1f3e0c2b11"

#: (query, level, rule, who: provider name or None for the request)
CASES = [
    ("resources1=VCPU:1,DISK_GB:1", "provider", "no_inventory", "cn1"),
    ("resources=VCPU:2", "provider", "capacity", "cn1"),
    ("resources=MEMORY_MB:128", "provider", "min_unit", "cn1"),
    ("resources=MEMORY_MB:2048", "provider", "max_unit", "cn1"),
    ("resources=MEMORY_MB:300", "provider", "step_size", "cn1"),
    ("resources1=VCPU:1&required1=HW_CPU_X86_AVX", "provider", "missing_trait", "cn2"),
    ("resources=VCPU:1&required=!HW_CPU_X86_AVX", "provider", "forbidden_trait", "cn1"),
    (f"resources1=VCPU:1&member_of1={seed.AGG_1}", "provider", "not_in_aggregate", "cn2"),
    (f"resources=VCPU:1&member_of=!{seed.AGG_1}", "provider", "forbidden_aggregate", "cn1"),
    ("resources1=VCPU:1&in_tree1=CN2", "provider", "outside_tree", "cn1"),
    ("resources1=VCPU:1&in_tree1=CN2", "tree", "outside_tree", "host"),
    ("resources=VCPU:1&root_required=HW_CPU_X86_AVX", "tree", "root_required", "cn2"),
    ("resources=DISK_GB:10", "tree", "not_shared", "cn1"),
    ("resources=VGPU:1", "tree", "no_provider", "cn2"),
    ("resources1=VCPU:1&resources2=VCPU:1&group_policy=none", "tree", "capacity", "cn1"),
    ("resources=VCPU:1&required=HW_CPU_X86_AVX", "tree", "missing_trait", "cn2"),
    ("resources=VCPU:1,SRIOV_NET_VF:1&version=1.28", "tree", "one_provider_per_tree", "host"),
    ("resources1=VCPU:1&resources2=VCPU:1&group_policy=isolate", "tree", "isolate", "cn2"),
    (
        "resources_C=VCPU:1&resources_N=SRIOV_NET_VF:1&same_subtree=_C,_N&group_policy=none",
        "tree",
        "same_subtree",
        "host",
    ),
    (f"resources=VCPU:1&member_of={UNKNOWN}", "request", "not_in_aggregate", None),
    (f"resources=VCPU:1&in_tree={UNKNOWN}", "request", "outside_tree", None),
]


@pytest.fixture(scope="module")
def why_cloud() -> Iterator[tuple[str, dict[str, str]]]:
    with rig.migrated_database("sqlite") as url, server.gunicorn(url, workers=2) as base:
        yield base, seed.why_cloud(seed.Http(base))


def _results(page) -> None:
    page.locator(".why-results section").first.wait_for()


@pytest.mark.parametrize(("query", "level", "rule", "who"), CASES)
def test_each_rule_is_explained(page, why_cloud, query, level, rule, who):
    base, ids = why_cloud
    page.goto(f"{base}/console/#/why?{query.replace('CN2', ids['cn2'])}")
    _results(page)
    found = page.locator(
        f'.why-level[data-level="{level}"] .why-rule[data-rule="{rule}"] '
        f'.explanation[data-name="{who or ""}"]'
    )
    assert found.count() >= 1, page.locator(".why-explanations").inner_text()
    assert found.first.locator(".detail").inner_text()


def test_capacity_shows_its_numbers(page, why_cloud, artifacts: Path):
    base, _ids = why_cloud
    page.goto(f"{base}/console/#/why?resources=VCPU:2&member_of=!{seed.AGG_2}")
    _results(page)
    assert page.locator(".candidate").count() == 2
    assert page.locator('.why-rule[data-rule="forbidden_aggregate"] .explanation').count() == 1
    page.screenshot(path=str(artifacts / "why-explained.png"), full_page=True)
    item = page.locator('.why-rule[data-rule="capacity"] .explanation[data-name="cn1"]')
    chips = item.locator(".chip.number").all_text_contents()
    for shown in ("capacity: 4", "used: 3", "free: 1", "requested: 2"):
        assert shown in chips
    assert "VCPU: 2 requested, 1 free" in item.locator(".detail").inner_text()


def test_providers_in_the_numbers_are_named(page, why_cloud):
    base, _ids = why_cloud
    page.goto(f"{base}/console/#/why?resources=DISK_GB:10")
    _results(page)
    item = page.locator('.why-rule[data-rule="not_shared"] .explanation[data-name="cn1"]')
    assert item.locator(".chip.number").all_text_contents() == ["sharing_providers: shr"]


def test_a_request_typed_in_the_form_shows_its_candidates(page, why_cloud):
    base, ids = why_cloud
    page.goto(f"{base}/console/#/why")
    page.locator(".why-form").wait_for()
    page.locator('.why-form [name="resources"]').first.fill("VCPU:1")
    page.get_by_role("button", name="+ Add group").click()
    group = page.locator(".why-group").last
    group.locator('[name="suffix"]').fill("_NET")
    group.locator('[name="resources"]').fill("SRIOV_NET_VF:1")
    page.locator('.why-form [name="group_policy"]').select_option("none")
    page.get_by_role("button", name="Explain").click()
    _results(page)
    # Only host has a NIC: numa0 or numa1 for VCPU, the nic for the group.
    assert page.locator(".candidate").count() == 2
    assert page.locator(".why-trees .tree-verdict.yes").all_text_contents() == ["✓ host"]
    assert set(page.locator(".candidate .allocation .name").all_text_contents()) == {
        "numa0",
        "numa1",
        "nic",
    }
    assert page.locator('.why-rule[data-rule="no_provider"] .explanation').count() == 3
    # The request is in the address: reloading asks it again.
    assert "resources_NET=SRIOV_NET_VF%3A1" in page.url or "resources_NET=SRIOV_NET_VF:1" in (
        page.url
    )
    page.reload()
    _results(page)
    assert page.locator(".candidate").count() == 2
    assert page.locator('.why-group [name="suffix"]').input_value() == "_NET"
    assert ids["host"] in page.locator(".why-trees .tree-verdict.yes").get_attribute("title")


def test_a_bad_request_shows_the_services_400(page, why_cloud):
    base, _ids = why_cloud
    page.goto(f"{base}/console/#/why?resources=VCPU")
    alert = page.locator(".page-why .error[role=alert]")
    alert.wait_for()
    assert alert.inner_text().startswith("400 Bad Request: ")
    assert "Badly formed resources parameter" in alert.inner_text()
    assert page.locator(".why-results section").count() == 0
