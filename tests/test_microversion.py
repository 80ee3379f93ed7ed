"""Parsing of the OpenStack-API-Version header."""

import pytest

from placement import microversion as mv


@pytest.mark.parametrize(
    "header, expected",
    [
        (None, (1, 0)),
        ("", (1, 0)),
        ("placement 1.5", (1, 5)),
        ("PLACEMENT 1.5", (1, 5)),
        ("placement  1.05 ", (1, 5)),
        ("placement latest", (1, 39)),
        ("compute 2.1, placement 1.7", (1, 7)),
        ("placement 1.2, placement 1.9", (1, 9)),
        ("compute 2.1", (1, 0)),
    ],
)
def test_accepted(header, expected):
    assert mv.parse(header) == expected


@pytest.mark.parametrize("value", ["1.a", "1", "pony.horse", "1.2.3", "placement 1.2"])
def test_malformed(value):
    with pytest.raises(mv.BadVersion, match=f"invalid version string: {value}"):
        mv.parse(f"placement {value}")


@pytest.mark.parametrize("value", ["0.5", "1.40", "2.0"])
def test_out_of_range(value):
    with pytest.raises(mv.UnacceptableVersion, match=f"Unacceptable version header: {value}"):
        mv.parse(f"placement {value}")


def test_feature_names_are_in_range():
    names = [v for k, v in vars(mv).items() if isinstance(v, mv.Version) and k.isupper()]
    assert all(mv.MIN_VERSION <= v <= mv.MAX_VERSION for v in names)
    # Raising MAX_VERSION names the feature it brings (the bounds are not features).
    features = [v for k, v in vars(mv).items() if k.isupper() and not k.endswith("_VERSION")]
    assert mv.MAX_VERSION in features
