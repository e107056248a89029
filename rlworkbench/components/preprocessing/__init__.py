"""Preprocessors and the preprocessor stacks (a list of preprocessors, or one per key of a Dict input)."""

from rlworkbench.components.preprocessing.clip import Clip
from rlworkbench.components.preprocessing.convert_type import ConvertType
from rlworkbench.components.preprocessing.dict_preprocessor_stack import DictPreprocessorStack
from rlworkbench.components.preprocessing.frame_stack import FrameStack
from rlworkbench.components.preprocessing.grayscale import GrayScale
from rlworkbench.components.preprocessing.image_resize import ImageResize
from rlworkbench.components.preprocessing.mean_std_normalize import MeanStdNormalize
from rlworkbench.components.preprocessing.multiply import Divide, Multiply
from rlworkbench.components.preprocessing.normalize import Normalize
from rlworkbench.components.preprocessing.preprocessor import Preprocessor
from rlworkbench.components.preprocessing.preprocessor_stack import PreprocessorStack
from rlworkbench.components.preprocessing.reshape import Flatten, OneHot, Reshape
from rlworkbench.components.preprocessing.transpose import Transpose

__all__ = [
    "Clip", "ConvertType", "DictPreprocessorStack", "Divide", "Flatten", "FrameStack", "GrayScale", "ImageResize",
    "MeanStdNormalize", "Multiply", "Normalize", "OneHot", "Preprocessor", "PreprocessorStack", "Reshape", "Transpose",
]
