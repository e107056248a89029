"""The component library. Each component is a short file with its API methods; see ``registry`` for specs."""

from rlworkbench.components.common import (
    Constant,
    ExponentialDecay,
    LinearDecay,
    PolynomialDecay,
    TimeDependentParameter,
)
from rlworkbench.components.distributions import Bernoulli, Beta, Categorical, Distribution, Normal, SquashedNormal
from rlworkbench.components.explorations import EpsilonGreedy, GaussianNoise, OrnsteinUhlenbeckNoise
from rlworkbench.components.helpers import ContainerMerger, ContainerSplitter
from rlworkbench.components.helpers.batch_splitter import BatchSplitter
from rlworkbench.components.helpers.gae import GAE
from rlworkbench.components.helpers.segment_tree import SegmentTree
from rlworkbench.components.helpers.sequence_helper import SequenceHelper
from rlworkbench.components.helpers.synchronizable import Synchronizable
from rlworkbench.components.layers import Dense, Layer, NeuralNetwork
from rlworkbench.components.losses import ActorCriticLoss, DQNLoss, PPOLoss, SACLoss, VTrace, VTraceLoss
from rlworkbench.components.memories import FIFOQueue, Memory, PrioritizedReplay, ReplayMemory, RingBuffer
from rlworkbench.components.optimizers import SGD, Adam, Optimizer, RMSProp
from rlworkbench.components.policies import (
    ActionAdapter,
    DuelingPolicy,
    GreedyActionSelector,
    Policy,
    SharedValueFunctionPolicy,
)
from rlworkbench.components.preprocessing import (
    Clip,
    ConvertType,
    DictPreprocessorStack,
    Divide,
    Flatten,
    FrameStack,
    GrayScale,
    ImageResize,
    MeanStdNormalize,
    Multiply,
    Normalize,
    OneHot,
    Preprocessor,
    PreprocessorStack,
    Reshape,
    Transpose,
)
from rlworkbench.components.registry import from_spec, from_specs, known_types, register

__all__ = [
    "ActionAdapter",
    "ActorCriticLoss",
    "Adam",
    "BatchSplitter",
    "Bernoulli",
    "Beta",
    "Categorical",
    "Clip",
    "Constant",
    "ContainerMerger",
    "ContainerSplitter",
    "ConvertType",
    "DQNLoss",
    "Dense",
    "DictPreprocessorStack",
    "Distribution",
    "Divide",
    "DuelingPolicy",
    "EpsilonGreedy",
    "ExponentialDecay",
    "FIFOQueue",
    "Flatten",
    "FrameStack",
    "GAE",
    "GaussianNoise",
    "GrayScale",
    "GreedyActionSelector",
    "ImageResize",
    "Layer",
    "LinearDecay",
    "MeanStdNormalize",
    "Memory",
    "Multiply",
    "NeuralNetwork",
    "Normal",
    "Normalize",
    "OneHot",
    "Optimizer",
    "OrnsteinUhlenbeckNoise",
    "PPOLoss",
    "Policy",
    "PolynomialDecay",
    "Preprocessor",
    "PreprocessorStack",
    "PrioritizedReplay",
    "RMSProp",
    "ReplayMemory",
    "Reshape",
    "RingBuffer",
    "SACLoss",
    "SGD",
    "SegmentTree",
    "SequenceHelper",
    "SharedValueFunctionPolicy",
    "SquashedNormal",
    "Synchronizable",
    "TimeDependentParameter",
    "Transpose",
    "VTrace",
    "VTraceLoss",
    "from_spec",
    "from_specs",
    "known_types",
    "register",
]
