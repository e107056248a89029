"""The ops contract: what ``self.ops`` offers graph functions, stated once for every backend.

A component writes its maths once, in graph functions that call ``self.ops.<name>(...)``; the build sets
``self.ops`` to the backend's namespace (``rlworkbench.backends.<backend>.ops``, a module whose ``__all__``
lists its ops). :class:`Ops` below is that namespace's interface: one method per op, with the parameter list
every backend uses and what the op computes. Read it to know which ops exist and what they promise; a type
checker reads it through the annotation ``Component.ops: Ops | None``.

How it is checked: ``tests/parity/test_ops_contract.py`` requires each installed backend's namespace to hold
exactly these names, each with exactly these parameters (names, kinds and defaults, in order), and every op
here to have a docstring; ``tests/backends/test_ops_*.py`` and ``tests/parity`` check that the backends give
the same numbers. A new op goes into every backend and into this protocol.

Conventions:

* ``Tensor`` is the backend's tensor (``torch.Tensor``, ``tf.Tensor``), typed by what both offer (the
  :class:`Tensor` protocol: shape, dtype, indexing, arithmetic); ``Scalar`` is a tensor or a Python number and
  ``Size`` an int or, on a static-graph backend, a scalar tensor for a size not known while tracing.
* ``Variable`` is what ``Component.create_variable`` returns (it reads as a tensor in every backend);
  ``Generator`` is what ``Component.create_random_generator`` returns, opaque: only handed back to random ops.
* ``Nested[T]`` is a leaf ``T`` or dicts, tuples and lists of them (``rlworkbench.nest``'s structures).
* ``axis`` counts from 0, negative from the end; ``axis=None`` in a reduction means over all axes.
* ``dtype`` is a string: ``"float32"``, ``"float64"``, ``"float16"``, ``"int32"``, ``"int64"``, ``"int8"``,
  ``"uint8"`` or ``"bool"``. Indices given to ops may have any int dtype; ints that ops return are int64.
* Images are channels-last ``(batch, height, width, channels)`` and conv kernels ``(kh, kw, in, out)``.

This module imports no framework (``rlworkbench.core`` never does).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, TypeAlias, TypeVar

from numpy.typing import ArrayLike

from rlworkbench.nest import Nested


class Tensor(Protocol):
    """What graph functions may use of a backend tensor without naming the backend (``torch.Tensor`` and
    ``tf.Tensor`` both offer it): its shape and dtype, indexing, and element-wise arithmetic with tensors and
    numbers."""

    @property
    def shape(self) -> Sequence[int | None]: ...
    @property
    def dtype(self) -> object: ...
    def __getitem__(self, index: object, /) -> Tensor: ...
    def __neg__(self) -> Tensor: ...
    def __abs__(self) -> Tensor: ...
    def __add__(self, other: Scalar, /) -> Tensor: ...
    def __radd__(self, other: Scalar, /) -> Tensor: ...
    def __sub__(self, other: Scalar, /) -> Tensor: ...
    def __rsub__(self, other: Scalar, /) -> Tensor: ...
    def __mul__(self, other: Scalar, /) -> Tensor: ...
    def __rmul__(self, other: Scalar, /) -> Tensor: ...
    def __truediv__(self, other: Scalar, /) -> Tensor: ...
    def __rtruediv__(self, other: Scalar, /) -> Tensor: ...
    def __pow__(self, other: Scalar, /) -> Tensor: ...
    def __rpow__(self, other: Scalar, /) -> Tensor: ...
    def __floordiv__(self, other: Scalar, /) -> Tensor: ...
    def __rfloordiv__(self, other: Scalar, /) -> Tensor: ...
    def __mod__(self, other: Scalar, /) -> Tensor: ...
    def __matmul__(self, other: Tensor, /) -> Tensor: ...
    def __invert__(self) -> Tensor: ...
    def __and__(self, other: Tensor | bool, /) -> Tensor: ...
    def __or__(self, other: Tensor | bool, /) -> Tensor: ...
    def __eq__(self, other: object, /) -> Tensor: ...  # type: ignore[override]  # element-wise, as on both backends
    def __ne__(self, other: object, /) -> Tensor: ...  # type: ignore[override]
    def __hash__(self) -> int: ...
    def __lt__(self, other: Scalar, /) -> Tensor: ...
    def __le__(self, other: Scalar, /) -> Tensor: ...
    def __gt__(self, other: Scalar, /) -> Tensor: ...
    def __ge__(self, other: Scalar, /) -> Tensor: ...


Scalar: TypeAlias = Tensor | float  # a tensor or a Python number (an int is a float to a type checker)
Size: TypeAlias = int | Tensor  # a static size, or a scalar tensor where the size is known only at run time
Variable: TypeAlias = Tensor  # a backend variable, from Component.create_variable
Generator: TypeAlias = object  # a backend random generator, from Component.create_random_generator
Carry = TypeVar("Carry", bound="Nested[Tensor]")  # what ``scan`` threads through its steps

# The names every backend's ``ACTIVATIONS`` holds (and ``activation`` accepts).
ACTIVATION_NAMES = ("linear", "relu", "tanh", "sigmoid", "elu", "selu", "leaky_relu", "softplus", "swish")


class Ops(Protocol):
    """The operations graph functions call as ``self.ops.<name>``; every backend provides all of them."""

    # ----- basic: layers, activations, shapes, casts, reductions ------------------------------------------------
    def dense(self, x: Tensor, kernel: Tensor, bias: Tensor | None) -> Tensor:
        """``x @ kernel + bias`` over the last axis of ``x`` (any leading axes); kernel is ``(in, out)``, bias
        ``(out,)`` or ``None`` for none."""

    @property
    def ACTIVATIONS(self) -> Mapping[str, Callable[[Tensor], Tensor]]:
        """Element-wise activation functions by name (``ACTIVATION_NAMES``); ``leaky_relu`` has slope 0.2,
        ``swish`` is ``x * sigmoid(x)``."""

    def activation(self, name: str | None) -> Callable[[Tensor], Tensor]:
        """The activation function called ``name`` from ``ACTIVATIONS``; ``None`` is ``"linear"`` (identity)."""

    def clip(self, x: Tensor, low: float, high: float) -> Tensor:
        """``x`` clipped element-wise into ``[low, high]``, keeping its dtype."""

    def multiply(self, x: Tensor, factor: float) -> Tensor:
        """``x * factor``; an int ``x`` becomes float32 first."""

    def reshape(self, x: Tensor, shape: Sequence[Size]) -> Tensor:
        """``x`` with a new shape (one entry may be -1: inferred)."""

    def leading_dims(self, x: Tensor, count: int) -> tuple[Size, ...]:
        """The sizes of the first ``count`` axes (batch/time): ints, or scalar tensors where not known statically."""

    def one_hot(self, x: Tensor, depth: int) -> Tensor:
        """Float32 one-hot encoding of the int ``x`` on a new last axis of size ``depth``."""

    def concat(self, values: Sequence[Tensor], axis: int = -1) -> Tensor:
        """``values`` joined along the existing axis ``axis``."""

    def cast(self, x: Tensor, dtype: str) -> Tensor:
        """``x`` converted to ``dtype`` (a dtype string, e.g. ``"float32"``)."""

    def argmax(self, x: Tensor, axis: int = -1) -> Tensor:
        """Int64 index of the largest entry along ``axis`` (which is removed)."""

    def argsort(self, x: Tensor, axis: int = -1) -> Tensor:
        """Int64 indices that sort ``x`` ascending along ``axis``; stable (equal entries keep their order)."""

    def reduce_sum(self, x: Tensor, axis: int | None = None) -> Tensor:
        """Sum over ``axis`` (removed), or of all entries when ``axis`` is ``None``."""

    def reduce_mean(self, x: Tensor, axis: int | None = None) -> Tensor:
        """Mean over ``axis`` (removed), or of all entries when ``axis`` is ``None``."""

    def identity(self, x: Nested[Tensor]) -> Nested[Tensor]:
        """``x`` itself, unchanged."""

    # ----- math: element-wise maths, reductions, softmax family, gathers, shapes, constants ---------------------
    def exp(self, x: Tensor) -> Tensor:
        """``e ** x`` element-wise."""

    def log(self, x: Tensor) -> Tensor:
        """Natural logarithm element-wise."""

    def sqrt(self, x: Tensor) -> Tensor:
        """Square root element-wise."""

    def square(self, x: Tensor) -> Tensor:
        """``x * x`` element-wise."""

    def abs(self, x: Tensor) -> Tensor:
        """Absolute value element-wise."""

    def sign(self, x: Tensor) -> Tensor:
        """-1, 0 or 1 element-wise, in ``x``'s dtype."""

    def minimum(self, a: Scalar, b: Scalar) -> Tensor:
        """Element-wise minimum of ``a`` and ``b`` (broadcast; a Python number takes the tensor's dtype)."""

    def maximum(self, a: Scalar, b: Scalar) -> Tensor:
        """Element-wise maximum of ``a`` and ``b`` (broadcast; a Python number takes the tensor's dtype)."""

    def where(self, condition: Tensor, a: Scalar, b: Scalar) -> Tensor:
        """``a`` where the bool ``condition`` holds, else ``b``, element-wise (broadcast)."""

    def reduce_max(self, x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
        """Maximum over ``axis`` (kept as size 1 if ``keepdims``), or of all entries when ``axis`` is ``None``."""

    def reduce_min(self, x: Tensor, axis: int | None = None, keepdims: bool = False) -> Tensor:
        """Minimum over ``axis`` (kept as size 1 if ``keepdims``), or of all entries when ``axis`` is ``None``."""

    def reduce_logsumexp(self, x: Tensor, axis: int = -1, keepdims: bool = False) -> Tensor:
        """``log(sum(exp(x)))`` over ``axis``, computed stably (kept as size 1 if ``keepdims``)."""

    def softmax(self, x: Tensor, axis: int = -1) -> Tensor:
        """``exp(x) / sum(exp(x))`` along ``axis``."""

    def log_softmax(self, x: Tensor, axis: int = -1) -> Tensor:
        """``log(softmax(x))`` along ``axis``, computed stably."""

    def huber(self, x: Tensor, delta: float = 1.0) -> Tensor:
        """Element-wise Huber loss of the error ``x``: ``x**2 / 2`` within ``delta``, else
        ``delta * (|x| - delta / 2)``."""

    def stack(self, values: Sequence[Tensor], axis: int = 0) -> Tensor:
        """Same-shaped ``values`` joined along a new axis ``axis``."""

    def unstack(self, x: Tensor, axis: int = 0) -> list[Tensor]:
        """The slices of ``x`` along ``axis`` (removed), as a list; the inverse of ``stack``."""

    def gather(self, params: Tensor, indices: Tensor) -> Tensor:
        """Rows of ``params`` (along axis 0) at int ``indices`` of any shape: shape ``indices.shape + rows``."""

    def select_by_index(self, x: Tensor, indices: Tensor) -> Tensor:
        """One entry of the last axis of ``x`` per leading position: ``out[i...] = x[i..., indices[i...]]``."""

    def expand_dims(self, x: Tensor, axis: int) -> Tensor:
        """``x`` with a new axis of size 1 at ``axis``."""

    def squeeze(self, x: Tensor, axis: int) -> Tensor:
        """``x`` without the axis ``axis``, which must have size 1."""

    def transpose(self, x: Tensor, perm: Sequence[int]) -> Tensor:
        """``x`` with its axes reordered: output axis ``i`` is input axis ``perm[i]``."""

    def tile(self, x: Tensor, multiples: Sequence[int]) -> Tensor:
        """``x`` repeated ``multiples[i]`` times along each axis ``i`` (one multiple per axis)."""

    def reverse(self, x: Tensor, axis: int) -> Tensor:
        """``x`` with the order of entries along ``axis`` reversed."""

    def cumsum(self, x: Tensor, axis: int, reverse: bool = False) -> Tensor:
        """Inclusive cumulative sum along ``axis``; from the end backwards if ``reverse``."""

    def searchsorted(self, sorted_sequence: Tensor, values: Tensor) -> Tensor:
        """Int64 index of the first entry of ``sorted_sequence`` (ascending along its last axis) greater than each
        of ``values`` (searching the row of the same leading indices when both have more than one axis)."""

    def matmul(self, a: Tensor, b: Tensor) -> Tensor:
        """Matrix product ``a @ b`` (batched over leading axes)."""

    def zeros(self, shape: Sequence[Size], dtype: str = "float32") -> Tensor:
        """A tensor of zeros of ``shape`` and ``dtype``."""

    def ones(self, shape: Sequence[Size], dtype: str = "float32") -> Tensor:
        """A tensor of ones of ``shape`` and ``dtype``."""

    def fill(self, shape: Sequence[Size], value: Scalar, dtype: str = "float32") -> Tensor:
        """A tensor of ``shape`` and ``dtype`` with every entry ``value``."""

    def zeros_like(self, x: Tensor) -> Tensor:
        """Zeros of ``x``'s shape and dtype."""

    def ones_like(self, x: Tensor) -> Tensor:
        """Ones of ``x``'s shape and dtype."""

    def constant(self, value: Scalar | ArrayLike, dtype: str = "float32") -> Tensor:
        """``value`` (a number, nested list or array) as a tensor of ``dtype``."""

    def arange(self, start: Size, limit: Size | None = None, dtype: str = "int64") -> Tensor:
        """``start, start + 1, …`` up to ``limit`` (excluded), of ``dtype``; ``arange(n)`` is ``0 … n - 1``."""

    def dim(self, x: Tensor, axis: int) -> Size:
        """The size of axis ``axis``: an int, or a scalar tensor where not known statically."""

    def stop_gradient(self, x: Tensor) -> Tensor:
        """``x``'s value, with no gradient flowing back through it."""

    # ----- state: changing variables, gradients -----------------------------------------------------------------
    def assign(self, variable: Variable, value: Scalar) -> Tensor:
        """Sets ``variable`` to ``value`` (cast to its dtype, broadcast to its shape), outside any gradient;
        returns the update (the variable, or the backend's assignment result)."""

    def assign_add(self, variable: Variable, value: Scalar) -> Tensor:
        """Adds ``value`` (cast to the variable's dtype, broadcast to its shape) to ``variable`` in place."""

    def assign_sub(self, variable: Variable, value: Scalar) -> Tensor:
        """Subtracts ``value`` (cast to the variable's dtype, broadcast to its shape) from ``variable`` in place."""

    def scatter_update(self, variable: Variable, indices: Tensor, updates: Tensor) -> Tensor:
        """``variable[indices] = updates`` along axis 0 (rows), ``updates`` cast to the variable's dtype."""

    def scatter_add(self, variable: Variable, indices: Tensor, updates: Tensor) -> Tensor:
        """``variable[indices] += updates`` along axis 0 (rows), ``updates`` cast to the variable's dtype;
        repeated indices add up."""

    def read(self, variable: Variable) -> Tensor:
        """A snapshot of ``variable``'s value that later assignments do not change."""

    def gradients(self, loss: Tensor, variables: Sequence[Variable]) -> list[Tensor]:
        """``d loss / d variable`` for each variable, zeros where ``loss`` does not depend on it."""

    def ring_write(self, buffers: Sequence[Variable], cursor: Variable, size: Variable,
                   values: Sequence[Tensor]) -> Tensor:
        """Writes a batch of rows into ring buffers (a replay memory's write, fused: NumPy on torch's CPU tensors):
        ``values[k]``, cast to ``buffers[k]``'s dtype, into the rows of ``buffers[k]`` (all of ``capacity`` rows) from
        row ``cursor`` on, wrapping — of a batch larger than the capacity, its last ``capacity`` rows; then advances
        ``cursor`` (mod ``capacity``) and ``size`` (at most ``capacity``; both int64 scalar variables). Returns the
        int64 rows written, in order."""

    # ----- trees: prioritized replay's sum tree, fused (NumPy on torch's CPU tensors) ---------------------------
    def tree_sum_set(self, tree: Variable, block_minima: Variable, nodes: Tensor, values: Tensor,
                     distinct: bool = False) -> None:
        """In the float64 sum tree ``tree`` (``2 * leaves`` nodes in heap order: node 1 the root, node ``i``'s
        children ``2i`` and ``2i + 1``, leaf ``j`` at node ``leaves + j``, node 0 unused), sets the leaf ``nodes`` to
        ``values``, adds each leaf's change to all its ancestors, and recomputes the entries of ``block_minima``
        (the minimum of each of its ``len(block_minima)`` equal blocks of leaves) whose blocks hold ``nodes``. With
        repeated nodes the last value wins (``distinct=True`` promises none, skipping that search). ``values``: one
        per node, or a scalar for all of them."""

    def tree_prefix_search(self, tree: Variable, prefix_sums: Tensor) -> Tensor:
        """Per ``u`` of ``prefix_sums``, the int64 leaf number ``j`` of the sum tree ``tree`` (see
        :meth:`tree_sum_set`) with ``sum(leaves[:j]) <= u < sum(leaves[:j + 1])``: never an empty leaf unless the
        whole tree is empty (then 0); ``u`` at or past the total picks the last non-empty leaf."""

    def tree_sample(self, tree: Variable, block_minima: Variable, uniforms: Tensor, count: Size,
                    ) -> tuple[Tensor, Tensor, Tensor]:
        """Proportional sampling from the sum tree ``tree`` in one call: ``(leaves, values, minimum)`` — per ``r`` of
        ``uniforms`` (in ``[0, 1)``) the int64 leaf :meth:`tree_prefix_search` finds at ``r`` times the total, the
        float32 values of those leaves, and the float32 smallest of the first ``count`` leaves
        (:meth:`tree_block_minimum`). What a prioritized replay's sample reads, without three calls' overhead."""

    def tree_block_minimum(self, tree: Variable, block_minima: Variable, count: Size) -> Tensor:
        """The smallest of the first ``count`` leaves of ``tree`` (a sum or min tree laid out as for
        :meth:`tree_sum_set`; ``count`` clipped to ``[0, leaves]``), a scalar of the tree's dtype, +inf for none:
        from ``block_minima`` for the whole blocks below ``count`` and the leaves of the rest one by one."""

    def track_max(self, largest: Variable, values: Tensor) -> Tensor:
        """``values`` with every NaN or infinite entry replaced by ``largest`` (a scalar variable of their dtype); then
        ``largest`` becomes the largest of itself and those values (none: unchanged). Prioritized replay's largest
        priority so far, fused: NumPy on torch's CPU tensors, where it was 8 small ops."""

    # ----- random: sampling from a component's own generator ----------------------------------------------------
    def random_uniform(self, generator: Generator, shape: Sequence[Size], low: float = 0.0,
                       high: float = 1.0) -> Tensor:
        """Float32 samples of ``shape``, uniform in ``[low, high)``."""

    def random_normal(self, generator: Generator, shape: Sequence[Size], mean: float = 0.0,
                      stddev: float = 1.0) -> Tensor:
        """Float32 samples of ``shape`` from ``Normal(mean, stddev)``."""

    def random_integers(self, generator: Generator, shape: Sequence[Size], low: int, high: Size) -> Tensor:
        """Int64 samples of ``shape``, uniform in ``[low, high)``; ``high`` may be a scalar tensor."""

    def random_categorical(self, generator: Generator, logits: Tensor) -> Tensor:
        """One int64 sample per leading position from ``softmax(logits)`` over the last axis (Gumbel-max)."""

    def copy_generator_state(self, target: Generator, source: Generator) -> None:
        """``target`` continues exactly where ``source`` stands (replica towers drawing what their component would
        draw); both generators of one kind (on PyTorch: both CPU, or both CUDA)."""

    # ----- nn: convolution, pooling, scan -----------------------------------------------------------------------
    def conv2d(self, x: Tensor, kernel: Tensor, bias: Tensor | None, strides: Sequence[int] = (1, 1),
               padding: str = "valid") -> Tensor:
        """2-D cross-correlation of NHWC ``x`` with a ``(kh, kw, in, out)`` kernel plus ``bias`` (or none);
        ``padding`` ``"valid"`` (none) or ``"same"`` (TensorFlow's: output size ``ceil(in / stride)``)."""

    def max_pool2d(self, x: Tensor, pool_size: Sequence[int], strides: Sequence[int],
                   padding: str = "valid") -> Tensor:
        """Max over ``pool_size`` windows of NHWC ``x``; ``"same"`` pads as TensorFlow (padding never wins)."""

    def lstm_cell(self, x: Tensor, state: tuple[Tensor, Tensor], kernel: Tensor, recurrent_kernel: Tensor,
                  bias: Tensor) -> tuple[Tensor, Tensor]:
        """One LSTM step ``(h', c')`` for ``x`` ``(batch, n)`` from ``state = (h, c)``: ``z = x @ kernel + h @
        recurrent_kernel + bias`` split into gates ``[i, f, g, o]`` (Keras' and torch's order), ``c' = sigmoid(f) c +
        sigmoid(i) tanh(g)``, ``h' = sigmoid(o) tanh(c')`` (fused where the backend has a fused cell)."""

    def scan(self, fn: Callable[[Carry, Tensor], Carry], elems: Tensor, initializer: Carry) -> Carry:
        """``carry = fn(carry, elems[t])`` for each ``t`` along axis 0 from ``initializer``; returns every step's
        carry stacked on a new axis 0 (nested like ``initializer``), as ``tf.scan``."""

    # ----- distributions: special functions, gamma sampling -----------------------------------------------------
    def lgamma(self, x: Tensor) -> Tensor:
        """``log |Γ(x)|`` element-wise."""

    def digamma(self, x: Tensor) -> Tensor:
        """``ψ(x) = d/dx log Γ(x)`` element-wise."""

    def atanh(self, x: Tensor) -> Tensor:
        """Inverse hyperbolic tangent element-wise (``±inf`` at ``±1``)."""

    def random_gamma(self, generator: Generator, concentration: Tensor) -> Tensor:
        """One ``Gamma(concentration, rate=1)`` sample per element (same shape and dtype), differentiable with
        respect to ``concentration``."""

    # ----- image ------------------------------------------------------------------------------------------------
    def resize_bilinear(self, images: Tensor, height: int, width: int) -> Tensor:
        """``(n, h, w, c)`` images resized to float32 ``(n, height, width, c)``: bilinear, half-pixel centres,
        no antialiasing."""

    # ----- optim ------------------------------------------------------------------------------------------------
    def global_norm(self, tensors: Sequence[Tensor]) -> Tensor:
        """``sqrt`` of the sum of the squares of all entries of all ``tensors`` (a scalar)."""

    def clip_by_global_norm(self, tensors: Sequence[Tensor], clip_norm: float, norm: Tensor | None = None
                            ) -> list[Tensor]:
        """``tensors`` scaled by ``clip_norm / max(global_norm(tensors), clip_norm)``: unchanged while their
        global norm is at most ``clip_norm``, else scaled down to exactly ``clip_norm``. ``norm``: their global
        norm when the caller has it already (not computed again)."""

    def adam_update(self, variables: Sequence[Variable], grads: Sequence[Tensor], first_moments: Sequence[Variable],
                    second_moments: Sequence[Variable], step: Tensor, learning_rate: float, beta1: float,
                    beta2: float, epsilon: float) -> None:
        """Adam, in place on all variables at once: ``m = beta1 m + (1 - beta1) g``, ``v = beta2 v + (1 - beta2)
        g**2``, ``var -= lr (m / (1 - beta1**step)) / (sqrt(v / (1 - beta2**step)) + epsilon)``; ``step`` is a
        float scalar counting from 1 (fused kernels: torch's ``_fused_adam_``, TF's ``ResourceApplyAdam``)."""

    def rmsprop_update(self, variables: Sequence[Variable], grads: Sequence[Tensor],
                       mean_squares: Sequence[Variable], velocities: Sequence[Variable], learning_rate: float,
                       decay: float, momentum: float, epsilon: float) -> None:
        """RMSProp, in place: ``ms = decay ms + (1 - decay) g**2``, ``u = g / (sqrt(ms) + epsilon)``; with
        ``velocities`` (one per variable, for momentum) ``vel = momentum vel + u`` and ``var -= lr vel``, else
        ``var -= lr u``."""

    def add_n_on(self, tensors: Sequence[Tensor], like: Variable) -> Tensor:
        """The element-wise sum of same-shaped ``tensors`` (which may live on other devices), on ``like``'s device:
        gradients of replicas gathered to their variable."""

    def assign_all(self, variables: Sequence[Variable], values: Sequence[Tensor]) -> None:
        """``variables[i] = values[i]`` for every ``i``, each value copied to its variable's device (replicas made
        equal to their variable after an update)."""

    def group_mean(self, tensors: Sequence[Tensor]) -> list[Tensor]:
        """The elementwise mean of ``tensors`` over a data-parallel learner group's ranks (one all-reduce), or
        ``tensors`` unchanged outside a group (see :mod:`rlworkbench.core.collective`)."""

    def apply_if_finite(self, values: Sequence[Tensor], apply: Callable[[], None]) -> Tensor:
        """Runs ``apply()`` (an update's assignments) only when every value (the loss, the gradient norm) is finite;
        whether it ran, as a bool tensor. The numerical guard: a non-finite update changes no variable."""

    def sgd_update(self, variables: Sequence[Variable], grads: Sequence[Tensor], velocities: Sequence[Variable],
                   learning_rate: float, momentum: float) -> None:
        """SGD, in place: ``var -= lr g``; with ``velocities`` (one per variable, for momentum) ``vel = momentum
        vel + g`` and ``var -= lr vel``."""
