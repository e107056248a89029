"""Dict and Tuple spaces nesting arbitrarily: structure, flatten/unflatten, map, checking with key paths."""

import numpy as np
import pytest

from rlworkbench.errors import SpaceError
from rlworkbench.spaces import BoolBox, Dict, FloatBox, IntBox, Space, TextBox, Tuple


def nested() -> Dict:
    return Dict(
        obs=Dict(image=FloatBox(0.0, 1.0, shape=(4, 4, 3)), vector=FloatBox(shape=(5,))),
        act=Tuple(IntBox(3), FloatBox(-1.0, 1.0, shape=(2,))),
        mask=BoolBox((3,)),
        meta=Tuple(Dict(name=TextBox(max_length=4), step=IntBox(100, dtype=np.int32))),
    )


LEAF_PATHS = ["obs/image", "obs/vector", "act/0", "act/1", "mask", "meta/0/name", "meta/0/step"]


def space_error(space, value) -> SpaceError:
    with pytest.raises(SpaceError) as info:
        space.check(value)
    assert not space.contains(value)
    return info.value


# ----- construction ---------------------------------------------------------------------------------------
def test_dict_from_mapping_and_keywords_keeps_insertion_order():
    space = Dict({"b": IntBox(2)}, a=FloatBox())
    assert list(space.keys()) == ["b", "a"] and list(space) == ["b", "a"] and len(space) == 2
    assert space["a"] == FloatBox() and dict(space.items())["b"] == IntBox(2)


def test_tuple_from_args_or_one_sequence():
    assert Tuple(IntBox(2), FloatBox()) == Tuple([IntBox(2), FloatBox()]) == Tuple((IntBox(2), FloatBox()))
    space = Tuple(IntBox(2), FloatBox())
    assert len(space) == 2 and space[1] == FloatBox() and list(space) == [IntBox(2), FloatBox()]


@pytest.mark.parametrize("bad", [{"": FloatBox()}, {"a/b": FloatBox()}, {1: FloatBox()}])
def test_dict_rejects_bad_keys(bad):
    with pytest.raises(SpaceError):
        Dict(bad)


def test_containers_reject_non_space_children():
    with pytest.raises(SpaceError) as info:
        Dict(a=FloatBox(), b=3)
    assert info.value.key_path == "b" and info.value.got == "int"
    with pytest.raises(SpaceError) as info:
        Tuple(FloatBox(), "x")
    assert info.value.key_path == "1" and info.value.got == "str"


# ----- structure of shape, dtype, rank, flat_dim -------------------------------------------------------------
def test_structured_properties():
    space = nested()
    assert space.shape == {"obs": {"image": (4, 4, 3), "vector": (5,)}, "act": ((), (2,)), "mask": (3,),
                           "meta": ({"name": (), "step": ()},)}
    assert space.dtype["obs"]["image"] == np.float32 and space.dtype["act"][0] == np.int64
    assert space.dtype["meta"][0]["step"] == np.int32 and space.dtype["mask"] == np.bool_
    assert space.rank == {"obs": {"image": 3, "vector": 1}, "act": (0, 1), "mask": 1,
                          "meta": ({"name": 0, "step": 0},)}
    assert space.flat_dim == 48 + 5 + 1 + 2 + 3 + 1 + 1


def test_empty_containers():
    assert Dict().flat_dim == 0 and Dict().flatten() == {} and Dict().sample(seed=0) == {}
    assert Tuple().sample() == () and Tuple().zeros() == ()
    assert {} in Dict() and () in Tuple()
    assert Dict().unflatten({}) == {} and Tuple().unflatten({}) == ()


# ----- flatten / unflatten ----------------------------------------------------------------------------------
def test_flatten_gives_key_paths_to_leaf_spaces_in_order():
    space = nested()
    flat = space.flatten()
    assert list(flat) == LEAF_PATHS
    assert flat["obs/image"] == FloatBox(0.0, 1.0, shape=(4, 4, 3))
    assert flat["act/0"] == IntBox(3) and flat["meta/0/step"] == IntBox(100, dtype=np.int32)
    assert all(not isinstance(leaf, (Dict, Tuple)) for leaf in flat.values())


def test_flatten_a_leaf_space():
    assert FloatBox().flatten() == {"": FloatBox()}
    value = np.zeros(2)
    assert FloatBox(shape=(2,)).flatten(value)[""] is value
    assert FloatBox(shape=(2,)).unflatten({"": value}) is value


def test_flatten_and_unflatten_values_round_trip():
    space = nested()
    value = space.sample(seed=0)
    flat = space.flatten(value)
    assert list(flat) == LEAF_PATHS
    assert flat["obs/image"] is value["obs"]["image"] and flat["act/0"] is value["act"][0]
    assert flat["meta/0/name"] is value["meta"][0]["name"]
    rebuilt = space.unflatten(flat)
    assert isinstance(rebuilt["act"], tuple) and isinstance(rebuilt["meta"][0], dict)
    assert list(rebuilt) == list(value)
    for path in LEAF_PATHS:
        assert space.flatten(rebuilt)[path] is flat[path]
    assert rebuilt in space


def test_unflatten_spaces_rebuilds_the_structure():
    space = nested()
    rebuilt = space.unflatten(space.flatten())
    assert isinstance(rebuilt, dict) and isinstance(rebuilt["act"], tuple) and isinstance(rebuilt["meta"][0], dict)
    assert rebuilt["obs"]["image"] is space["obs"]["image"] and rebuilt["act"][1] is space["act"][1]
    assert Dict(obs=Dict(rebuilt["obs"]), act=Tuple(rebuilt["act"]), mask=rebuilt["mask"],
                meta=Tuple(Dict(rebuilt["meta"][0]))) == space


def test_unflatten_missing_path_raises():
    with pytest.raises(KeyError):
        nested().unflatten({"obs/image": 0})


# ----- map --------------------------------------------------------------------------------------------------
def test_map_replaces_every_leaf_and_keeps_structure():
    space = nested()
    mapped = space.map(lambda s: FloatBox(shape=(s.flat_dim,)))
    assert isinstance(mapped, Dict) and isinstance(mapped["act"], Tuple)
    assert mapped.flatten() == {path: FloatBox(shape=(leaf.flat_dim,)) for path, leaf in space.flatten().items()}
    assert space.map(lambda s: s) == space
    assert FloatBox().map(lambda s: IntBox(2)) == IntBox(2)


def test_map_one_hot_on_a_dict_of_categories():
    space = Dict(a=IntBox(3), b=IntBox(4, shape=(2,)))
    one_hot = space.map(IntBox.as_one_hot_float_space)
    assert one_hot["a"].shape == (3,) and one_hot["b"].shape == (2, 4)


# ----- sample, zeros, contains -----------------------------------------------------------------------------
def test_sample_has_the_structure_and_is_contained():
    space = nested()
    value = space.sample(seed=1)
    assert set(value) == {"obs", "act", "mask", "meta"}
    assert isinstance(value["act"], tuple) and len(value["act"]) == 2
    assert value["obs"]["image"].shape == (4, 4, 3) and value["act"][0].shape == ()
    assert value in space
    again = space.sample(seed=1)
    for path, leaf in space.flatten(value).items():
        np.testing.assert_array_equal(leaf, space.flatten(again)[path])
    different = space.sample(seed=2)
    assert not np.array_equal(value["obs"]["image"], different["obs"]["image"])


def test_sample_leaves_differ_from_each_other():
    # one generator is threaded through all leaves, so same-typed leaves do not repeat each other
    space = Tuple(FloatBox(0.0, 1.0, shape=(8,)), FloatBox(0.0, 1.0, shape=(8,)))
    a, b = space.sample(seed=0)
    assert not np.array_equal(a, b)


def test_zeros_has_the_structure():
    zeros = nested().zeros()
    assert zeros in nested()
    assert zeros["obs"]["image"].shape == (4, 4, 3) and not zeros["obs"]["image"].any()
    assert zeros["act"][0].dtype == np.int64 and zeros["meta"][0]["name"] == ""
    batched = nested().with_batch_rank().zeros(size=6)
    assert batched["act"][1].shape == (6, 2)


def test_lists_are_accepted_for_tuples():
    space = Tuple(IntBox(3), IntBox(3))
    assert [np.int64(1), np.int64(2)] in space


# ----- errors name the key path ------------------------------------------------------------------------------
def test_error_names_nested_key_path_for_bad_leaf():
    space = nested()
    value = space.sample(seed=0)
    value["obs"]["image"] = value["obs"]["image"] * 2.0 + 1.5
    error = space_error(space, value)
    assert error.key_path == "obs/image"
    assert "key 'obs/image'" in str(error) and "out of bounds" in str(error)


def test_error_names_tuple_index():
    space = nested()
    value = space.sample(seed=0)
    value["act"] = (np.int64(5), value["act"][1])
    error = space_error(space, value)
    assert error.key_path == "act/0" and "key 'act/0'" in str(error)
    value["act"] = (np.int64(1), np.zeros(3, np.float32))
    error = space_error(space, value)
    assert error.key_path == "act/1" and error.expected == "(2,)" and error.got == "(3,)"


def test_error_names_deep_path_through_tuple_and_dict():
    space = nested()
    value = space.sample(seed=0)
    value["meta"] = ({"name": "ok", "step": np.float32(1.0)},)
    error = space_error(space, value)
    assert error.key_path == "meta/0/step" and "wrong dtype" in str(error)
    assert error.expected == np.int32 and error.got == np.float32


def test_error_missing_dict_key():
    space = nested()
    value = space.sample(seed=0)
    del value["obs"]["vector"]
    error = space_error(space, value)
    assert error.key_path == "obs/vector"
    assert "misses a key" in str(error) and "'vector'" in error.expected and "'vector'" not in error.got


def test_error_extra_dict_key():
    space = nested()
    value = space.sample(seed=0)
    value["obs"]["depth"] = np.zeros(3)
    error = space_error(space, value)
    assert error.key_path == "obs" and "unknown keys" in str(error)
    assert error.got == "extra keys ['depth']" and "key 'obs'" in str(error)
    top = space.sample(seed=0)
    top["extra"] = 1
    error = space_error(space, top)
    assert error.key_path is None and "extra" in str(error)


def test_error_wrong_tuple_length():
    space = nested()
    value = space.sample(seed=0)
    value["act"] = value["act"] + (np.int64(0),)
    error = space_error(space, value)
    assert error.key_path == "act"
    assert error.expected == "tuple of length 2" and error.got == "tuple of length 3"
    assert "key 'act'" in str(error)


def test_error_wrong_container_kind():
    space = nested()
    value = space.sample(seed=0)
    value["obs"] = [1, 2]
    error = space_error(space, value)
    assert error.key_path == "obs" and error.expected == "dict" and error.got == "list"
    value = space.sample(seed=0)
    value["act"] = np.zeros(2)
    error = space_error(space, value)
    assert error.key_path == "act" and error.got == "ndarray"


def test_empty_containers_still_check_the_kind_of_value():
    assert 5 not in Dict() and 5 not in Tuple() and (1, 2) not in Tuple() and {"a": 1} not in Dict()
    error = space_error(Dict(x=Tuple()), {"x": (1,)})
    assert error.key_path == "x" and error.got == "tuple of length 1"


# ----- equality, hashing, repr -----------------------------------------------------------------------------
def test_equal_containers_are_equal_and_hash_equal():
    assert nested() == nested() and hash(nested()) == hash(nested())
    assert len({nested(), nested(), Dict(), Tuple()}) == 3


def test_unequal_pairs():
    a = Dict(a=FloatBox(), b=IntBox(3))
    assert a == Dict(a=FloatBox(), b=IntBox(3))
    others = [Dict(a=FloatBox(), b=IntBox(4)), Dict(a=FloatBox(dtype=np.float64), b=IntBox(3)),
              Dict(a=FloatBox(), c=IntBox(3)), Dict(a=FloatBox()), Dict(a=FloatBox(), b=Tuple(IntBox(3))),
              Dict(a=FloatBox(), b=IntBox(3), add_batch_rank=True), Dict(a=FloatBox(), b=IntBox(3), add_time_rank=True),
              Tuple(FloatBox(), IntBox(3)), Dict(a=FloatBox(0.0, 1.0), b=IntBox(3))]
    for other in others:
        assert a != other and other != a, other
    assert len({a, *others}) == len(others) + 1
    assert Tuple(IntBox(2), FloatBox()) != Tuple(FloatBox(), IntBox(2))
    assert Tuple(Tuple(IntBox(2))) != Tuple(IntBox(2))
    assert Dict(a=FloatBox()) != {"a": FloatBox()}


def test_container_repr_is_compact():
    assert repr(Dict(a=FloatBox(shape=(2,)), b=Tuple(IntBox(3), BoolBox()))) == \
        "Dict(a=FloatBox((2,), float32), b=Tuple(IntBox((), int64, [0, 3)), BoolBox((), bool)))"
    assert repr(Tuple(IntBox(2), add_batch_rank=True)) == "Tuple(IntBox((), int64, [0, 2))+B)"


def test_containers_are_spaces():
    assert isinstance(nested(), Space) and isinstance(nested()["act"], Space)
