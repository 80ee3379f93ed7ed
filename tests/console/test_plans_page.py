"""The action-plans page in Chromium: the DAG's edges and layers, live states while a
real ``placement-applier`` runs the plan, cancelling, a reader refused a start, and the
continuous audits a real ``placement-audit-runner`` runs, with their plans."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import identity, rig, server
from tests.console import seed

#: The weight planner makes a diamond of these: nop, then both sleeps side by
#: side (sleep's parallelization 2), then stop.
PLANNER = """
[watcher_planners.weight]
weights = nop:70,sleep:40,stop:35
parallelization = nop:1,sleep:2,stop:1
"""
SUCCEEDED_GREEN = "rgb(46, 157, 79)"


@contextlib.contextmanager
def applier(
    url: str, workdir: Path, module: str = "placement.cmd.applier"
) -> Iterator[subprocess.Popen]:
    """A real ``placement-applier`` on the server's database (or, with ``module``
    ``placement.cmd.audit_runner``, a real ``placement-audit-runner``)."""
    name = module.rsplit(".", 1)[-1]
    conf = workdir / f"{name}.conf"
    conf.write_text(f"[placement_database]\nconnection = {url}\n")
    log = open(workdir / f"{name}.log", "wb")  # noqa: SIM115 (the process writes it)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            module,
            "--config-file",
            str(conf),
            "--poll-interval",
            "0.2",
            "--lease-seconds",
            "2",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    log.close()
    try:
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def make_plan(http: seed.Http, consumer: str, *sleeps: float) -> tuple[str, list[dict]]:
    """An audit of nop, ``sleeps``, stop; returns its plan's uuid and actions."""
    actions = [{"action_type": "nop", "input_parameters": {"message": "begin"}}]
    actions += [{"action_type": "sleep", "input_parameters": {"duration": s}} for s in sleeps]
    actions.append({"action_type": "stop", "resource_id": consumer, "input_parameters": {}})
    audit = http.v1(
        "POST",
        "/v1/audits",
        {
            "audit_type": "ONESHOT",
            "goal": "unclassified",
            "strategy": "actuator",
            "parameters": {"actions": actions},
        },
    )
    (plan,) = http.v1("GET", f"/v1/action_plans?audit_uuid={audit['uuid']}")["action_plans"]
    found = http.v1("GET", f"/v1/actions/detail?action_plan_uuid={plan['uuid']}")["actions"]
    return plan["uuid"], found


@pytest.fixture(scope="module")
def plan_cloud(tmp_path_factory) -> Iterator[tuple[str, dict[str, str]]]:
    workdir = tmp_path_factory.mktemp("plans")
    with (
        rig.migrated_database("sqlite") as url,
        server.gunicorn(url, workers=2, conf_extra=PLANNER) as base,
        applier(url, workdir),
        applier(url, workdir, module="placement.cmd.audit_runner"),
    ):
        yield base, seed.small_cloud(seed.Http(base))


def _graph(page) -> tuple[set[tuple[str, str]], dict[str, str]]:
    """The drawn edges and each node's layer."""
    edges = page.locator("svg.graph path.edge").evaluate_all(
        "paths => paths.map(p => [p.dataset.from, p.dataset.to])"
    )
    layers = page.locator("svg.graph g.node").evaluate_all(
        "nodes => nodes.map(n => [n.dataset.uuid, n.dataset.layer])"
    )
    return {tuple(edge) for edge in edges}, dict(layers)


def _confirm(page) -> None:
    dialog = page.locator("#confirm-dialog")
    dialog.wait_for()
    dialog.locator("#confirm-ok").click()


def test_graph_has_the_plans_edges_and_turns_green_as_it_runs(page, plan_cloud, artifacts: Path):
    base, ids = plan_cloud
    http = seed.Http(base)
    plan, actions = make_plan(http, ids["consumer"], 2.5, 2.6)
    page.goto(f"{base}/console/#/plans?plan={plan}")
    page.locator("svg.graph g.node").nth(3).wait_for()
    edges, layers = _graph(page)
    assert edges == {(parent, a["uuid"]) for a in actions for parent in a["parents"]}
    by_type = {}
    for action in actions:
        by_type.setdefault(action["action_type"], set()).add(layers[action["uuid"]])
    assert by_type == {"nop": {"0"}, "sleep": {"1"}, "stop": {"2"}}
    assert len(edges) == 4  # a diamond
    page.screenshot(path=str(artifacts / "plans-recommended.png"), full_page=True)

    sleep = next(a for a in actions if a["input_parameters"].get("duration") == 2.5)
    page.locator(f'g.node[data-uuid="{sleep["uuid"]}"]').hover()
    tip = page.locator(".tip")
    tip.wait_for()
    assert "sleep" in tip.text_content() and "target: 2.5 s" in tip.text_content()
    assert "state: PENDING" in tip.text_content()
    page.mouse.move(0, 0)

    page.locator(".plan-head button.start").click()
    assert "4 actions will be applied" in page.locator("#confirm-message").text_content()
    _confirm(page)
    page.wait_for_selector('svg.graph g.node[data-state="ONGOING"]', timeout=30_000)
    page.screenshot(path=str(artifacts / "plans-running.png"), full_page=True)
    page.wait_for_function(
        "() => [...document.querySelectorAll('svg.graph g.node')]"
        ".every(n => n.dataset.state === 'SUCCEEDED')",
        timeout=60_000,
    )
    fills = page.locator("svg.graph g.node rect").evaluate_all(
        "rects => rects.map(r => getComputedStyle(r).fill)"
    )
    assert fills == [SUCCEEDED_GREEN] * 4
    page.wait_for_selector('.plan-head[data-state="SUCCEEDED"]')
    assert "4/4 actions succeeded" in page.locator(".plan-head").text_content()
    assert http.v1("GET", f"/v1/action_plans/{plan}")["state"] == "SUCCEEDED"
    page.screenshot(path=str(artifacts / "plans.png"), full_page=True)


def test_cancelling_a_running_plan_asks_then_stops_it(page, plan_cloud):
    base, ids = plan_cloud
    http = seed.Http(base)
    plan, actions = make_plan(http, ids["consumer"], 60)
    page.goto(f"{base}/console/#/plans?plan={plan}")
    page.locator(".plan-head button.start").click()
    _confirm(page)
    page.wait_for_selector(".plan-head[data-state=ONGOING]", timeout=30_000)
    page.locator(".plan-head button.cancel").click()
    page.locator("#confirm-dialog").wait_for()
    page.locator("#confirm-cancel").click()  # changed my mind: nothing happens
    assert http.v1("GET", f"/v1/action_plans/{plan}")["state"] == "ONGOING"
    page.locator(".plan-head button.cancel").click()
    _confirm(page)
    page.wait_for_selector(".plan-head[data-state=CANCELLED]", timeout=30_000)
    states = page.locator("svg.graph g.node").evaluate_all("n => n.map(e => e.dataset.state)")
    assert states == ["SUCCEEDED", "CANCELLED", "CANCELLED"]
    # The tooltip carries each action's status message as the API has it.
    sleep = next(a for a in actions if a["action_type"] == "sleep")
    message = http.v1("GET", f"/v1/actions/{sleep['uuid']}")["status_message"]
    assert message
    page.locator(f'g.node[data-uuid="{sleep["uuid"]}"]').hover()
    page.locator(".tip").wait_for()
    assert f"status: {message}" in page.locator(".tip").text_content()


READER_POLICY = "\n".join(
    f'"{rule}": "role:admin or role:reader"'
    for rule in (
        "action_plan:get_all",
        "action_plan:detail",
        "action_plan:get",
        "action:get_all",
        "action:detail",
        "action:get",
    )
)


def test_a_reader_sees_the_plan_but_the_start_is_refused(page, tmp_path, artifacts: Path):
    """Keystone: the console asks for a token; policy lets readers read plans
    (a policy file), and the default refuses them the start, shown as the 403."""
    policy_file = tmp_path / "policy.yaml"
    policy_file.write_text(READER_POLICY + "\n")
    with identity.serving() as keystone:
        keystone.tokens["admin-token"] = identity.Token("alice", "proj-a", ["admin", "reader"])
        keystone.tokens["reader-token"] = identity.Token("bob", "proj-b", ["reader"])
        conf = identity.authtoken_section(keystone.url, keystone.url) + (
            f"[oslo_policy]\npolicy_file = {policy_file}\n"
        )
        with (
            rig.migrated_database("sqlite") as url,
            server.gunicorn(url, workers=2, conf_extra=conf, auth_strategy="keystone") as base,
        ):
            admin = seed.Http(base, token="admin-token")
            host = admin.provider("compute-9", VCPU={"total": 4})
            plan, _actions = make_plan(admin, admin.claim({host: {"VCPU": 1}}), 1)

            page.goto(f"{base}/console/#/plans?plan={plan}")
            dialog = page.locator("#token-dialog")
            dialog.wait_for()
            assert "Keystone" in dialog.text_content()
            dialog.locator("#token-input").fill("forged-token")
            dialog.locator("#token-ok").click()
            # Keystone refuses it (401): the console asks again, saying why.
            page.wait_for_function(
                "() => document.querySelector('#token-reason').textContent.includes('401')"
            )
            dialog.locator("#token-input").fill("reader-token")
            dialog.locator("#token-ok").click()
            page.locator("svg.graph g.node").nth(2).wait_for()
            assert "keystone" in page.locator("#identity").text_content()
            # Audits are not the reader's to see: their box says so, the plan stays.
            audits_refused = page.locator(".audit-list li.error")
            audits_refused.wait_for()
            assert "Policy doesn't allow audit:detail" in audits_refused.text_content()
            page.locator(".plan-head button.start").click()
            _confirm(page)
            refusal = page.locator(".plan-error")
            refusal.wait_for()
            assert refusal.text_content().startswith("403")
            assert "Policy doesn't allow action_plan:start to be performed." in (
                refusal.text_content()
            )
            page.screenshot(path=str(artifacts / "plans-reader-refused.png"), full_page=True)
            assert admin.v1("GET", f"/v1/action_plans/{plan}")["state"] == "RECOMMENDED"

            # The capacity page's route is a Placement read: the default refuses readers too.
            page.goto(f"{base}/console/#/capacity")
            alert = page.locator(".page-capacity .error[role=alert]")
            alert.wait_for()
            assert "403" in alert.text_content()
            assert "placement:console:capacity" in alert.text_content()


def _audit(http: seed.Http, name: str, audit_type: str, **fields) -> dict:
    """A recurring audit of one nop, forced so a plan running elsewhere does not hold it."""
    return http.v1(
        "POST",
        "/v1/audits",
        {
            "name": name,
            "audit_type": audit_type,
            "goal": "unclassified",
            "strategy": "actuator",
            "force": True,
            "parameters": {
                "actions": [{"action_type": "nop", "input_parameters": {"message": "hi"}}]
            },
            **fields,
        },
    )


def test_continuous_audits_show_their_schedule_next_run_and_plans(
    page, plan_cloud, artifacts: Path
):
    base, _ids = plan_cloud
    http = seed.Http(base)
    every = _audit(http, "every-2s", "CONTINUOUS", interval="2")
    cron = _audit(http, "every-5-minutes", "CONTINUOUS", interval="*/5 * * * *")
    event = _audit(http, "on-alarm", "EVENT")
    oneshot = _audit(http, "just-once", "ONESHOT")
    page.goto(f"{base}/console/#/plans")
    audits = page.locator(".audit-list")
    shown = audits.locator(f'li[data-uuid="{every["uuid"]}"]')
    # The runner has run it twice: the first plan CANCELLED by the second.
    shown.locator('.audit-plans li[data-state="CANCELLED"]').first.wait_for(timeout=30_000)
    assert "every-2s" in shown.locator(".audit-head").text_content()
    assert shown.locator(".schedule").text_content() == "every 2 s"
    page.wait_for_selector(f'.audit-list li[data-uuid="{every["uuid"]}"][data-state="ONGOING"]')
    page.wait_for_selector(
        f'.audit-list li[data-uuid="{cron["uuid"]}"] .audit-plans li[data-state="RECOMMENDED"]',
        timeout=30_000,
    )
    cron_shown = audits.locator(f'li[data-uuid="{cron["uuid"]}"]')
    assert cron_shown.locator(".schedule").text_content() == "cron */5 * * * *"
    # The next run as the API has it, on a five-minute boundary.
    next_run = http.v1("GET", f"/v1/audits/{cron['uuid']}")["next_run_time"]
    assert next_run[14:19] in {f"{m:02d}:00" for m in range(0, 60, 5)}
    page.wait_for_function(
        "([uuid, text]) => document.querySelector(`.audit-list li[data-uuid='${uuid}'] .next-run`)"
        "?.textContent === text",
        arg=[cron["uuid"], f"{next_run[:19].replace('T', ' ')} UTC"],
    )
    event_shown = audits.locator(f'li[data-uuid="{event["uuid"]}"]')
    assert event_shown.locator(".schedule").text_content() == "on its webhook"
    assert event_shown.locator(".next-run").text_content() == "—"
    assert event_shown.get_attribute("data-state") == "PENDING"
    assert event_shown.locator(".audit-plans li.empty").text_content() == "No plan yet."
    assert audits.locator(f'li[data-uuid="{oneshot["uuid"]}"]').count() == 0

    # Its plans, the newest first, are the API's; one opens in the graph.
    page.wait_for_function(  # a second run's plan, shown at the page's next poll
        "uuid => document.querySelectorAll("
        "`.audit-list li[data-uuid='${uuid}'] .audit-plans li[data-uuid]`).length >= 2",
        arg=every["uuid"],
        timeout=30_000,
    )
    plans = http.v1("GET", f"/v1/action_plans?audit_uuid={every['uuid']}&sort_dir=desc")
    newest_first = [plan["uuid"] for plan in plans["action_plans"]]
    listed = shown.locator(".audit-plans li").evaluate_all(
        "items => items.map(i => i.dataset.uuid)"
    )
    assert 2 <= len(listed) <= 5 and set(listed) <= set(newest_first)
    assert [newest_first.index(uuid) for uuid in listed] == sorted(
        newest_first.index(uuid) for uuid in listed
    )
    cancelled = shown.locator('.audit-plans li[data-state="CANCELLED"]').first
    chosen = cancelled.get_attribute("data-uuid")
    cancelled.locator("button").click()
    page.wait_for_selector(f'.plan-head[data-uuid="{chosen}"][data-state="CANCELLED"]')
    assert f"audit {every['uuid'][:8]}" in page.locator(".plan-head").text_content()
    page.screenshot(path=str(artifacts / "plans-continuous.png"), full_page=True)

    # Suspended, it says so and makes no more plans.
    http.v1(
        "PATCH",
        f"/v1/audits/{every['uuid']}",
        [{"op": "replace", "path": "/state", "value": "SUSPENDED"}],
    )
    page.wait_for_selector(
        f'.audit-list li[data-uuid="{every["uuid"]}"][data-state="SUSPENDED"]', timeout=15_000
    )
    assert "SUSPENDED" in shown.locator(".audit-head .badge").text_content()
    http.v1(
        "PATCH",
        f"/v1/audits/{cron['uuid']}",
        [{"op": "replace", "path": "/state", "value": "CANCELLED"}],
    )
