"""The built-in goals and strategies: upstream's names, order, specs and planners."""

import importlib
import json
import pkgutil

from placement.actionplans import catalog, datasources, measured, strategies
from placement.actionplans.planners import PLANNERS


def test_the_ten_goals_in_entry_point_order():
    assert [(g.name, g.display_name) for g in catalog.GOALS] == [
        ("airflow_optimization", "Airflow Optimization"),
        ("cluster_maintaining", "Cluster Maintaining"),
        ("dummy", "Dummy goal"),
        ("hardware_maintenance", "Hardware Maintenance"),
        ("noisy_neighbor", "Noisy Neighbor"),
        ("saving_energy", "Saving Energy"),
        ("server_consolidation", "Server Consolidation"),
        ("thermal_optimization", "Thermal Optimization"),
        ("unclassified", "Unclassified"),
        ("workload_balancing", "Workload Balancing"),
    ]


def test_server_consolidation_efficacy_specification():
    spec = catalog.GOALS_BY_NAME["server_consolidation"].efficacy_specification
    assert list(spec) == [
        {
            "name": "compute_nodes_count",
            "description": "The total number of enabled compute nodes.",
            "unit": None,
            "schema": '{"type": "integer", "minimum": 0}',
        },
        {
            "name": "released_compute_nodes_count",
            "description": "The number of compute nodes to be released.",
            "unit": None,
            "schema": '{"type": "integer", "minimum": 0}',
        },
        {
            "name": "instance_migrations_count",
            "description": "The number of VM migrations to be performed.",
            "unit": None,
            "schema": '{"type": "integer", "minimum": 0}',
        },
    ]


def test_goals_in_scope_without_indicators():
    for name in ("dummy", "unclassified", "cluster_maintaining"):
        assert catalog.GOALS_BY_NAME[name].efficacy_specification == ()


def test_every_indicator_schema_is_json_text():
    for goal in catalog.GOALS:
        for entry in goal.efficacy_specification:
            assert set(entry) == {"name", "description", "unit", "schema"}
            assert json.loads(entry["schema"])["minimum"] == 0


def test_strategies_in_entry_point_order():
    assert [(s.name, s.display_name, s.goal, s.planner) for s in catalog.STRATEGIES] == [
        ("actuator", "Actuator", "unclassified", None),
        ("basic", "Basic offline consolidation", "server_consolidation", "weight"),
        ("dummy", "Dummy strategy", "dummy", "weight"),
        ("dummy_with_resize", "Dummy strategy with resize", "dummy", "weight"),
        (
            "dummy_with_scorer",
            "Dummy Strategy using sample Scoring Engines",
            "dummy",
            "weight",
        ),
        ("host_maintenance", "Host Maintenance Strategy", "cluster_maintaining", "weight"),
        (
            "node_resource_consolidation",
            "Node Resource Consolidation strategy",
            "server_consolidation",
            "node_resource_consolidation",
        ),
        ("noisy_neighbor", "Noisy Neighbor", "noisy_neighbor", None),
        ("outlet_temperature", "Outlet temperature based strategy", "thermal_optimization", None),
        ("saving_energy", "Saving Energy Strategy", "saving_energy", "weight"),
        (
            "storage_capacity_balance",
            "Storage Capacity Balance Strategy",
            "workload_balancing",
            None,
        ),
        ("uniform_airflow", "Uniform airflow migration strategy", "airflow_optimization", None),
        (
            "vm_workload_consolidation",
            "VM Workload Consolidation Strategy",
            "server_consolidation",
            "weight",
        ),
        (
            "workload_balance",
            "Workload Balance Migration Strategy",
            "workload_balancing",
            "weight",
        ),
        (
            "workload_stabilization",
            "Workload stabilization",
            "workload_balancing",
            "workload_stabilization",
        ),
        ("zone_migration", "Zone migration", "hardware_maintenance", None),
    ]
    for strategy in catalog.STRATEGIES:
        assert strategy.goal in catalog.GOALS_BY_NAME
        assert strategy.planner is None or strategy.planner in PLANNERS
        assert callable(strategy.solve)


def test_strategies_are_listed_alphabetically_once_each():
    names = [strategy.name for strategy in catalog.STRATEGIES]
    assert names == sorted(set(names))
    assert list(catalog.STRATEGIES_BY_NAME) == names


def test_every_strategy_module_declaration_is_listed():
    """A module declaring a ``STRATEGY`` but missing from the list would never run."""
    declared = set()
    for module in pkgutil.iter_modules(strategies.__path__, f"{strategies.__name__}."):
        declaration = getattr(importlib.import_module(module.name), "STRATEGY", None)
        if declaration is not None:
            assert catalog.STRATEGIES_BY_NAME.get(declaration.name) is declaration
            declared.add(declaration.name)
    assert declared == set(catalog.STRATEGIES_BY_NAME)


def test_only_the_capacity_strategies_need_a_world():
    assert {s.name for s in catalog.STRATEGIES if s.needs_world} == {
        "basic",
        "host_maintenance",
        "node_resource_consolidation",
        "saving_energy",
        "vm_workload_consolidation",
        "workload_balance",
        "workload_stabilization",
        "zone_migration",
    }


def test_the_metric_strategies_declare_their_queries():
    assert {s.name for s in catalog.STRATEGIES if s.measures is not None} == {
        "basic",
        "vm_workload_consolidation",
        "workload_balance",
        "workload_stabilization",
    }
    optional = {s.name for s in catalog.STRATEGIES if s.measures_optional}
    assert optional == {"workload_stabilization"}


def test_the_strategies_that_cannot_run_here_say_why():
    assert {s.name: s.cannot_run for s in catalog.STRATEGIES if s.cannot_run} == {
        "noisy_neighbor": (
            "it reads instance_l3_cache_usage, which no datasource served here answers "
            "(upstream's Prometheus datasource has no series for them)"
        ),
        "outlet_temperature": (
            "it reads host_outlet_temp, which no datasource served here answers "
            "(upstream's Prometheus datasource has no series for them)"
        ),
        "storage_capacity_balance": (
            "it balances Cinder's storage pools, and this service has no Cinder (no storage model)"
        ),
        "uniform_airflow": (
            "it reads host_airflow, host_inlet_temp, host_power, which no datasource "
            "served here answers (upstream's Prometheus datasource has no series for them)"
        ),
    }


def test_the_metrics_they_read_are_answered_by_no_datasource_here():
    unanswered = {
        measured.HOST_OUTLET_TEMP,
        measured.HOST_AIRFLOW,
        measured.HOST_INLET_TEMP,
        measured.HOST_POWER,
        measured.INSTANCE_L3_CACHE_USAGE,
    }
    for declaration in datasources.DECLARED.values():
        assert declaration.missing(unanswered) == sorted(unanswered)


def test_the_parameters_of_the_strategies_that_cannot_run_are_upstreams():
    # python-watcher 17.0.0's get_schema(): every parameter a number with a default
    defaults = {
        name: {key: (entry["type"], entry["default"]) for key, entry in spec.items()}
        for name, spec in (
            (s.name, s.parameters_spec["properties"]) for s in catalog.STRATEGIES if s.cannot_run
        )
    }
    assert defaults == {
        "noisy_neighbor": {"cache_threshold": ("number", 35.0), "period": ("number", 100.0)},
        "outlet_temperature": {
            "threshold": ("number", 35.0),
            "period": ("number", 30),
            "granularity": ("number", 300),
        },
        "storage_capacity_balance": {"volume_threshold": ("number", 80.0)},
        "uniform_airflow": {
            "threshold_airflow": ("number", 400.0),
            "threshold_inlet_t": ("number", 28.0),
            "threshold_power": ("number", 350.0),
            "period": ("number", 300),
            "granularity": ("number", 300),
        },
    }
    airflow = catalog.STRATEGIES_BY_NAME["uniform_airflow"].parameters_spec["properties"]
    assert airflow["threshold_airflow"]["description"] == (
        "airflow threshold for migration, Unit is 0.1CFM"
    )


def test_dummy_parameters_spec_is_upstreams():
    # the JSON doc/watcher-api.md §4.2 says the API returns
    upstream = json.loads(
        '{"properties": {'
        '"para1": {"description": "number parameter example", "type": "number", '
        '"default": 3.2, "minimum": 1.0, "maximum": 10.2}, '
        '"para2": {"description": "string parameter example", "type": "string", '
        '"default": "hello"}}}'
    )
    assert catalog.STRATEGIES_BY_NAME["dummy"].parameters_spec == upstream
    assert catalog.STRATEGIES_BY_NAME["dummy_with_resize"].parameters_spec == upstream
    renamed = json.loads(json.dumps(upstream).replace('"para', '"param'))
    assert catalog.STRATEGIES_BY_NAME["dummy_with_scorer"].parameters_spec == renamed


def test_the_four_scoring_engines_in_upstreams_order():
    assert [(e.name, e.description, e.metainfo == "") for e in catalog.SCORING_ENGINES] == [
        ("dummy_scorer", "Dummy workload classifier", False),
        ("dummy_min_scorer", "Dummy Scorer calculating the minimum value", True),
        ("dummy_max_scorer", "Dummy Scorer calculating the maximum value", True),
        ("dummy_avg_scorer", "Dummy Scorer calculating the average value", True),
    ]


def test_actuator_spec_is_upstreams_plus_the_planner_choice():
    spec = catalog.STRATEGIES_BY_NAME["actuator"].parameters_spec
    assert spec["required"] == ["actions"]
    # Named here, not read from PLANNERS: adding or dropping a planner must show up.
    assert spec["properties"]["planner"] == {
        "type": "string",
        "enum": ["node_resource_consolidation", "weight", "workload_stabilization"],
    }
    item = spec["properties"]["actions"]["items"]
    assert set(item["properties"]) == {"action_type", "resource_id", "input_parameters"}
    assert item["properties"]["input_parameters"]["properties"] == {}


def test_specs_that_need_a_maintenance_node_or_choose_hosts():
    host_maintenance = catalog.STRATEGIES_BY_NAME["host_maintenance"].parameters_spec
    assert host_maintenance["required"] == ["maintenance_node"]
    assert list(host_maintenance["properties"]) == [
        "maintenance_node",
        "backup_node",
        "disable_live_migration",
        "disable_cold_migration",
    ]
    consolidation = catalog.STRATEGIES_BY_NAME["node_resource_consolidation"].parameters_spec
    assert consolidation["properties"]["host_choice"]["default"] == "auto"
