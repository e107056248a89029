"""Which registered component types have a torch/TF parity case here.

Types covered below must stay registered (a rename must update this map), and every registered type must be
covered: a new component needs a torch/TF parity case here (and its entry below) before the suite passes.
"""

from __future__ import annotations

from pathlib import Path

from rlworkbench.components import known_types
from rlworkbench.components.registry import registered

COVERED = {
    "actor_critic_loss": "test_parity_losses.py",
    "adam": "test_parity_optimizers.py",
    "batch_splitter": "test_parity_helpers.py",
    "bernoulli": "test_parity_distributions.py",
    "bernoulli_adapter": "test_parity_policies.py",
    "beta": "test_parity_distributions.py",
    "beta_adapter": "test_parity_policies.py",
    "categorical": "test_parity_distributions.py",
    "categorical_adapter": "test_parity_policies.py",
    "clip": "test_parity_preprocessors.py",
    "concat": "test_parity_layers.py",
    "constant_parameter": "test_parity_distributions.py",
    "container_merger": "test_parity_stacks_and_containers.py",
    "container_splitter": "test_parity_stacks_and_containers.py",
    "conv2d": "test_parity_layers.py",
    "convert_type": "test_parity_preprocessing_extra.py",
    "dense": "test_parity_dense.py",
    "dict_preprocessor_stack": "test_parity_preprocessing_extra.py",
    "divide": "test_parity_preprocessors.py",
    "dqn_loss": "test_parity_losses.py",
    "dueling_action_adapter": "test_parity_policies.py",
    "dueling_policy": "test_parity_policies.py",
    "epsilon_greedy": "test_parity_distributions.py",
    "exponential_decay": "test_parity_distributions.py",
    "fifo_queue": "test_parity_memories.py",
    "flatten": "test_parity_preprocessors.py",
    "frame_stack": "test_parity_preprocessing_extra.py",
    "gae": "test_parity_losses.py",
    "gaussian_noise": "test_parity_distributions.py",
    "grayscale": "test_parity_preprocessing_extra.py",
    "greedy_action_selector": "test_parity_stacks_and_containers.py",
    "image_resize": "test_parity_preprocessing_extra.py",
    "linear_decay": "test_parity_distributions.py",
    "lstm": "test_parity_layers.py",
    "max_pool2d": "test_parity_layers.py",
    "mean_std_normalize": "test_parity_preprocessing_extra.py",
    "multiply": "test_parity_preprocessors.py",
    "neural_network": "test_parity_network.py",
    "normal": "test_parity_distributions.py",
    "normal_adapter": "test_parity_policies.py",
    "normalize": "test_parity_preprocessing_extra.py",
    "one_hot": "test_parity_preprocessors.py",
    "ornstein_uhlenbeck_noise": "test_parity_policies.py",
    "policy": "test_parity_policies.py",
    "polynomial_decay": "test_parity_distributions.py",
    "ppo_loss": "test_parity_losses.py",
    "recurrent_network": "test_parity_recurrent.py",
    "recurrent_policy": "test_parity_recurrent.py",
    "preprocessor_stack": "test_parity_stacks_and_containers.py",
    "prioritized_replay": "test_parity_memories.py",
    "replay_memory": "test_parity_memories.py",
    "reshape": "test_parity_preprocessors.py",
    "residual": "test_parity_layers.py",
    "ring_buffer": "test_parity_memories.py",
    "rmsprop": "test_parity_optimizers.py",
    "sac_loss": "test_parity_losses.py",
    "segment_tree": "test_parity_memories.py",
    "sequence_helper": "test_parity_losses.py",
    "sgd": "test_parity_optimizers.py",
    "shared_value_function_policy": "test_parity_policies.py",
    "squashed_normal": "test_parity_distributions.py",
    "synchronizable": "test_parity_helpers.py",
    "transpose": "test_parity_preprocessing_extra.py",
    "vtrace": "test_parity_losses.py",
    "vtrace_loss": "test_parity_losses.py",
}


def test_covered_types_are_still_registered():
    assert not sorted(set(COVERED) - set(known_types())), "update COVERED: these types are no longer registered"


def test_every_registered_component_has_a_parity_case():
    missing = sorted(set(known_types()) - set(COVERED))
    assert not missing, f"registered components without a torch/TF parity case in tests/parity: {missing}"


def test_covering_files_exist_and_use_their_types():
    """Each named file exists and builds the type: by class name or as a ``{"type": ...}`` spec."""
    classes = registered()
    for type_name, file_name in COVERED.items():
        path = Path(__file__).with_name(file_name)
        assert path.is_file(), f"{type_name}: no {file_name}"
        text = path.read_text()
        assert classes[type_name].__name__ in text or f'"{type_name}"' in text, f"{file_name} never uses {type_name}"
