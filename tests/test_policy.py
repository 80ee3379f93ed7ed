"""Policy: upstream's defaults in both modes, policy files, malformed files, 403s."""

from __future__ import annotations

import textwrap

import falcon.testing
import pytest
from oslo_context import context as oslo_context
from oslo_policy import opts as policy_opts

from placement import conf as placement_conf
from placement import errors, policy
from placement.wsgi import create_app
from tests import rig

A_OR_S = "rule:admin_or_service_api"

# Upstream's base rules: name -> (check string, scope types).
BASE = {
    "admin_api": ("role:admin", ["project"]),
    "service_api": ("role:service", ["project"]),
    "admin_or_service_api": ("role:admin or role:service", ["project"]),
    "project_reader_api": ("role:reader and project_id:%(project_id)s", None),
    "admin_or_project_reader_or_service_api": (
        "role:admin or rule:project_reader_api or role:service",
        ["project"],
    ),
}
CRUD = ("list", "create", "show", "update", "delete")
API = (
    [f"placement:resource_providers:{a}" for a in CRUD]
    + [f"placement:resource_classes:{a}" for a in CRUD]
    + [f"placement:resource_providers:inventories:{a}" for a in CRUD]
    + [
        "placement:resource_providers:aggregates:list",
        "placement:resource_providers:aggregates:update",
        "placement:resource_providers:usages",
    ]
    + [f"placement:traits:{a}" for a in ("list", "show", "update", "delete")]
    + [f"placement:resource_providers:traits:{a}" for a in ("list", "update", "delete")]
    + [f"placement:allocations:{a}" for a in ("manage", "list", "update", "delete")]
    + ["placement:resource_providers:allocations:list", "placement:allocation_candidates:list"]
)


def test_base_rules_are_upstreams():
    rules = {r.name: r for r in policy.list_rules()}
    for name, (check_str, scope_types) in BASE.items():
        assert (rules[name].check_str, rules[name].scope_types) == (check_str, scope_types)
        if name == "admin_api":
            assert rules[name].deprecated_rule is None
        else:
            deprecated = rules[name].deprecated_rule
            assert (deprecated.name, deprecated.check_str) == ("rule:admin_api", "role:admin")


def test_api_rules_are_upstreams():
    ours = {r.name for r in policy.INFRA_OPTIM_RULES + policy.CONSOLE_RULES}
    rules = {r.name: r for r in policy.list_rules() if r.name not in ours}
    assert set(rules) == set(BASE) | set(API) | {"placement:usages", "placement:reshaper:reshape"}
    for name in API:
        assert (rules[name].check_str, rules[name].scope_types) == (A_OR_S, ["project"]), name
    assert rules["placement:usages"].check_str == "rule:admin_or_project_reader_or_service_api"
    assert rules["placement:reshaper:reshape"].check_str == "rule:service_api"
    assert all(not getattr(rules[n], "deprecated_rule", None) for n in API)


def test_console_rules_read_what_the_placement_reads_of_the_same_facts_do():
    """The console shows nobody more than the API would: its rules default to
    the provider-listing rules' check string and scope."""
    rules = {r.name: r for r in policy.list_rules()}
    rule = rules[policy.CONSOLE_CAPACITY]
    assert rule in policy.CONSOLE_RULES and rule.name == "placement:console:capacity"
    listing = rules[policy.RP_LIST]
    assert (rule.check_str, rule.scope_types) == (listing.check_str, listing.scope_types)
    assert rule.operations == [{"method": "GET", "path": "/console/api/capacity"}]


@pytest.fixture(scope="module", params=[True, False], ids=["new-defaults", "legacy"])
def enforcer(request, tmp_path_factory):
    conf = placement_conf.load([], default_config_files=[])
    policy_opts.set_defaults(conf)
    conf.set_override("enforce_new_defaults", request.param, group="oslo_policy")
    conf.set_override(
        "policy_file", str(tmp_path_factory.mktemp("p") / "none.yaml"), group="oslo_policy"
    )
    made = policy.make_enforcer(conf)
    made.new_defaults = request.param
    return made


def ctx(roles, project="p1", system_scope=None):
    return oslo_context.RequestContext(
        user_id="u",
        project_id=None if system_scope else project,
        roles=roles,
        system_scope=system_scope,
    )


def allowed(
    enforcer, context, rule, target=None, message="Policy does not allow {rule} to be performed."
):
    try:
        policy.authorize(enforcer, context, rule, target)
    except errors.Forbidden as exc:
        assert str(exc) == message.format(rule=rule)
        return False
    return True


# (who, rule, target project, allowed with new defaults, allowed with legacy defaults)
MATRIX = [
    (["admin"], "placement:resource_providers:list", None, True, True),
    (["service"], "placement:resource_providers:list", None, True, True),
    (["member", "reader"], "placement:resource_providers:list", None, False, False),
    (["admin"], "placement:reshaper:reshape", None, False, True),
    (["service"], "placement:reshaper:reshape", None, True, True),
    (["reader"], "placement:usages", "p1", True, True),  # legacy adds role:admin, keeps new
    (["reader"], "placement:usages", "other", False, False),
    (["member"], "placement:usages", "p1", False, False),
    (["admin"], "placement:usages", "other", True, True),
]


@pytest.mark.parametrize(
    "roles,rule,project,new,old",
    MATRIX,
    ids=[  # no ":" (gabbi's plugin)
        f"{'+'.join(roles)}-{rule.replace(':', '.')}-{project}"
        for roles, rule, project, *_ in MATRIX
    ],
)
def test_defaults(enforcer, roles, rule, project, new, old):
    target = {"project_id": project} if project else None
    assert allowed(enforcer, ctx(roles), rule, target) is (new if enforcer.new_defaults else old)


def test_system_scoped_token_is_refused(enforcer):
    system_admin = ctx(["admin", "member", "reader"], system_scope="all")
    assert not allowed(
        enforcer, system_admin, "placement:resource_providers:list", message="{rule}"
    )  # upstream names only the rule here


def conf_with(tmp_path, db_url, oslo_policy: str):
    path = tmp_path / "placement.conf"
    path.write_text(
        textwrap.dedent(f"""\
        [api]
        auth_strategy = noauth2
        [placement_database]
        connection = {db_url}
        [oslo_policy]
        """)
        + textwrap.dedent(oslo_policy)
    )
    return placement_conf.load(["--config-file", str(path)])


@pytest.fixture
def db_url():
    with rig.fresh_database("sqlite") as url:
        rig.migrated(url)
        yield url


@pytest.fixture
def make_app():
    made = []

    def build(conf):
        made.append(create_app(conf))
        return made[-1]

    yield build
    for app in made:
        app.placement_engine.dispose()


def get(app, path, **headers):
    return falcon.testing.simulate_get(
        app, path, headers={"OpenStack-API-Version": "placement 1.30", **headers}
    )


def test_policy_file_overrides_defaults(tmp_path, db_url, make_app):
    (tmp_path / "policy.yaml").write_text(
        textwrap.dedent("""\
        "placement:traits:list": "@"
        "placement:traits:show": "!"
        """)
    )
    app = make_app(conf_with(tmp_path, db_url, f"policy_file = {tmp_path / 'policy.yaml'}\n"))
    assert get(app, "/traits", **{"X-Auth-Token": "nobody"}).status_code == 200
    response = get(app, "/traits/HW_CPU_X86_AVX", **{"X-Auth-Token": "admin"})
    assert response.status_code == 403
    error = response.json["errors"][0]
    assert (error["title"], error["code"]) == ("Forbidden", "placement.undefined_code")
    assert "Policy does not allow placement:traits:show to be performed." in error["detail"]


def test_relative_policy_file_is_found_next_to_the_config(tmp_path, db_url, make_app):
    (tmp_path / "policy.yaml").write_text('"placement:traits:list": "@"\n')
    app = make_app(conf_with(tmp_path, db_url, "enforce_new_defaults = True\n"))
    assert get(app, "/traits", **{"X-Auth-Token": "nobody"}).status_code == 200


def test_enforce_scope_in_the_file_is_tolerated(tmp_path, db_url, make_app):
    app = make_app(
        conf_with(
            tmp_path,
            db_url,
            textwrap.dedent("""\
        enforce_new_defaults = True
        enforce_scope = True
        """),
        )
    )
    headers = {"X-Auth-Token": "admin"}
    assert get(app, "/traits", **headers).status_code == 200
    assert get(app, "/traits", **headers, **{"OpenStack-System-Scope": "all"}).status_code == 403


@pytest.mark.parametrize(
    "content,expected",
    [
        (
            '"placement:traits:list": "role:admin or"\n',
            "rule 'placement:traits:list': cannot parse 'role:admin or'",
        ),
        (
            '"placement:traits:list": "role:admin"\n"admin_api": "(role:admin"\n',
            "rule 'admin_api': cannot parse '(role:admin'",
        ),
        ('"placement:traits:list": 5\n', "rule 'placement:traits:list': cannot parse 5"),
        ('"placement:traits:list": [role:admin\n', "while parsing"),
        ("- role:admin\n", "expected a mapping of rule names to check strings"),
    ],
    ids=["dangling-or", "unbalanced-parenthesis", "not-a-string", "bad-yaml", "not-a-mapping"],
)
def test_malformed_policy_file_stops_start_up(tmp_path, db_url, content, expected):
    path = tmp_path / "policy.yaml"
    path.write_text(content)
    conf = conf_with(tmp_path, db_url, f"policy_file = {path}\n")
    with pytest.raises(placement_conf.ConfigError) as raised:
        create_app(conf)
    assert str(raised.value).startswith(f"Invalid policy file {path}: ")
    assert expected in str(raised.value)


def test_get_enforcer_entry_point_reads_placement_conf(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".placement").mkdir()
    (tmp_path / ".placement" / "placement.conf").write_text(
        "[oslo_policy]\nenforce_new_defaults = False\n"
    )
    enforcer = policy.get_enforcer()
    assert enforcer.conf.oslo_policy.enforce_new_defaults is False
    assert "placement:reshaper:reshape" in enforcer.rules
