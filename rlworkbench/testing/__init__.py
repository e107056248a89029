"""Sub-graph testing: build any component alone from spaces and check what its API methods return."""

from rlworkbench.testing.compare import assert_nested_close
from rlworkbench.testing.component_test import ComponentTest
from rlworkbench.testing.polling import wait_until

__all__ = ["ComponentTest", "assert_nested_close", "wait_until"]
