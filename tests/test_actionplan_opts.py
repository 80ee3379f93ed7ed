"""Action-plan options: upstream's groups, integer weights, planner options built from them."""

import pytest

from placement import actionplan_opts, conf
from placement.actionplans.action_types import BUILTIN, ActionTypeDeclaration
from placement.actionplans.planners import PlannerOptions
from placement.actionplans.planners.options import DEFAULT_STABILIZATION_WEIGHTS, DEFAULT_WEIGHTS


def _load(tmp_path, text):
    path = tmp_path / "placement.conf"
    path.write_text(text)
    return conf.load(["--config-file", str(path)])


def test_defaults_give_upstreams_planner_options():
    loaded = conf.load([], default_config_files=[])
    assert actionplan_opts.planner_options(loaded) == PlannerOptions()
    assert loaded.api.max_limit == 1000
    assert loaded["watcher_workflow_engines.taskflow"].max_workers >= 1


def test_configured_dicts_replace_the_defaults_whole(tmp_path):
    loaded = _load(
        tmp_path,
        "[watcher_planner]\nplanner = workload_stabilization\n"
        "[watcher_planners.weight]\nweights = nop:9, sleep:70\nparallelization = sleep:3\n"
        "[watcher_planners.workload_stabilization]\nweights = migrate:1,resize:2\n",
    )
    assert actionplan_opts.planner_options(loaded) == PlannerOptions(
        weight_weights={"nop": 9, "sleep": 70},
        weight_parallelization={"sleep": 3},
        stabilization_weights={"migrate": 1, "resize": 2},
        default_planner="workload_stabilization",
    )


NOTIFY = ActionTypeDeclaration("notify", {}, weight=45, parallelization=3, stabilization_weight=6)


def test_an_installed_type_adds_its_declared_defaults_to_options_left_unset(tmp_path):
    loaded = _load(tmp_path, "[watcher_planners.weight]\nparallelization = nop:4\n")
    options = actionplan_opts.planner_options(loaded, {**BUILTIN, "notify": NOTIFY})
    assert options.weight_weights == {**DEFAULT_WEIGHTS, "notify": 45}
    assert options.weight_parallelization == {"nop": 4}
    assert options.stabilization_weights == {**DEFAULT_STABILIZATION_WEIGHTS, "notify": 6}
    assert options.action_types["notify"] is NOTIFY


@pytest.mark.parametrize(
    "text, named",
    [
        ("[watcher_planners.weight]\nweights = nop:seventy\n", "[watcher_planners.weight] weights"),
        (
            "[watcher_planners.weight]\nparallelization = nop:1.5\n",
            "[watcher_planners.weight] parallelization",
        ),
        (
            "[watcher_planners.workload_stabilization]\nweights = nop\n",
            "[watcher_planners.workload_stabilization] weights",
        ),
        ("[watcher_planner]\nplanner = fastest\n", "[watcher_planner] planner"),
        (
            "[watcher_workflow_engines.taskflow]\nmax_workers = 0\n",
            "[watcher_workflow_engines.taskflow] max_workers",
        ),
        ("[api]\nmax_limit = lots\n", "[api] max_limit"),
    ],
)
def test_malformed_value_stops_loading_naming_the_option(tmp_path, text, named):
    with pytest.raises(conf.ConfigError, match=named.replace("[", r"\[").replace("]", r"\]")):
        _load(tmp_path, text)


def test_sample_config_lists_the_groups():
    listed = dict(conf.list_opts())
    assert {opt.name for opt in listed["watcher_planners.weight"]} == {"weights", "parallelization"}
    assert "max_limit" in {opt.name for opt in listed["api"]}


def test_datasource_options_have_upstreams_names_and_defaults():
    loaded = conf.load([], default_config_files=[])
    assert loaded.watcher_datasources.datasources == ["gnocchi", "grafana", "aetos"]
    assert (
        loaded.watcher_datasources.query_max_retries,
        loaded.watcher_datasources.query_interval,
    ) == (10, 1)
    client = loaded.prometheus_client
    assert (client.host, client.port, client.fqdn_label, client.instance_uuid_label) == (
        None,
        9090,
        "fqdn",
        "resource",
    )
    assert actionplan_opts.datasource_names(loaded, "basic") == ["gnocchi", "grafana", "aetos"]


def test_a_datasources_list_names_only_upstreams_datasources(tmp_path):
    loaded = _load(tmp_path, "[watcher_datasources]\ndatasources = prometheus, gnocchi\n")
    assert actionplan_opts.datasource_names(loaded, "basic") == ["prometheus", "gnocchi"]
    with pytest.raises(conf.ConfigError, match=r"\[watcher_datasources\] datasources"):
        _load(tmp_path, "[watcher_datasources]\ndatasources = influx\n")


def test_a_strategys_own_datasources_replace_the_global_list(tmp_path):
    loaded = _load(tmp_path, "[watcher_strategies.probe]\ndatasources = prometheus\n")
    group = actionplan_opts.strategy_group("probe")
    loaded.register_opts(actionplan_opts.strategy_datasources_opts(), group=group)
    assert actionplan_opts.datasource_names(loaded, "probe") == ["prometheus"]
    loaded.register_opts(actionplan_opts.strategy_datasources_opts(), group="watcher_strategies.x")
    assert actionplan_opts.datasource_names(loaded, "x") == ["gnocchi", "grafana", "aetos"]
