"""The strict audit-parameter validator (doc/watcher-api.md §3.3 step 6)."""

import pytest

from placement.actionplans.errors import AuditParameterNotAllowed, InvalidAuditParameters
from placement.actionplans.parameters import apply_strategy_parameters
from placement.actionplans.strategies import actuator, dummy

ACTUATOR_PARAMETERS = actuator.STRATEGY.parameters_spec
DUMMY_PARAMETERS = dummy.STRATEGY.parameters_spec


def test_defaults_are_inserted_and_returned():
    given = {"para1": 2}
    assert apply_strategy_parameters(DUMMY_PARAMETERS, given) == {"para1": 2, "para2": "hello"}
    assert given == {"para1": 2}
    assert apply_strategy_parameters(DUMMY_PARAMETERS, {}) == {"para1": 3.2, "para2": "hello"}


def test_applying_twice_changes_nothing():
    once = apply_strategy_parameters(DUMMY_PARAMETERS, {"para2": "x"})
    assert apply_strategy_parameters(DUMMY_PARAMETERS, once) == once


def test_nested_defaults_are_inserted():
    spec = {
        "properties": {
            "outer": {
                "type": "object",
                "default": {},
                "properties": {"inner": {"type": "integer", "default": 5}},
            }
        }
    }
    assert apply_strategy_parameters(spec, {}) == {"outer": {"inner": 5}}


def test_an_unlisted_key_is_refused_with_upstreams_words():
    with pytest.raises(AuditParameterNotAllowed, match="^Audit parameter para3 are not allowed$"):
        apply_strategy_parameters(DUMMY_PARAMETERS, {"para3": 1})


def test_unlisted_keys_are_refused_in_nested_objects_despite_additional_properties():
    params = {"actions": [{"action_type": "nop", "input_parameters": {}, "extra": 1}]}
    with pytest.raises(AuditParameterNotAllowed, match="Audit parameter extra are not allowed"):
        apply_strategy_parameters(ACTUATOR_PARAMETERS, params)


def test_an_empty_properties_map_accepts_any_key():
    params = {"actions": [{"action_type": "nop", "input_parameters": {"anything": [1]}}]}
    assert apply_strategy_parameters(ACTUATOR_PARAMETERS, params) == params


@pytest.mark.parametrize(
    "params, first_line",
    [
        ({"para1": "2"}, "'2' is not of type 'number'"),
        ({"para1": 20}, "20 is greater than the maximum of 10.2"),
        ({"para1": 0.5}, "0.5 is less than the minimum of 1.0"),
    ],
)
def test_other_failures_carry_jsonschemas_full_text(params, first_line):
    with pytest.raises(InvalidAuditParameters) as caught:
        apply_strategy_parameters(DUMMY_PARAMETERS, params)
    message = str(caught.value)
    assert message.startswith(f"Invalid parameters for strategy: {first_line}\n")
    assert "Failed validating" in message


def test_required_properties():
    with pytest.raises(InvalidAuditParameters, match="'actions' is a required property"):
        apply_strategy_parameters(ACTUATOR_PARAMETERS, {})


def test_the_planner_parameter_must_name_a_planner():
    with pytest.raises(InvalidAuditParameters, match="'fastest' is not one of"):
        apply_strategy_parameters(ACTUATOR_PARAMETERS, {"actions": [], "planner": "fastest"})


def test_without_a_spec_only_empty_parameters_pass():
    assert apply_strategy_parameters({}, {}) == {}
    with pytest.raises(
        InvalidAuditParameters,
        match="^Specify parameters but no predefined strategy for audit, "
        "or no parameter spec in predefined strategy$",
    ):
        apply_strategy_parameters({}, {"para1": 1})
