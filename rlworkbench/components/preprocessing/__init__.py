"""Preprocessors and the preprocessor stack."""

from rlworkbench.components.preprocessing.clip import Clip
from rlworkbench.components.preprocessing.multiply import Divide, Multiply
from rlworkbench.components.preprocessing.preprocessor import Preprocessor
from rlworkbench.components.preprocessing.preprocessor_stack import PreprocessorStack
from rlworkbench.components.preprocessing.reshape import Flatten, OneHot, Reshape

__all__ = ["Clip", "Divide", "Flatten", "Multiply", "OneHot", "Preprocessor", "PreprocessorStack", "Reshape"]
