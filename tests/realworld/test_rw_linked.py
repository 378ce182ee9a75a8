"""Real-world patterns: linked structures of jitclass instances, as Numba's own examples and
tutorials write them, restated in our own words with the import switched: a node type named
before its class by `deferred_type()`, fields declared `optional(node_type)` in an `OrderedDict`
spec, and `node_type.define(Node.class_type.instance_type)` once the class exists; a singly linked
list grown by a `prepend` method returning a new node and walked with `while head is not None`
into an array, a stack class holding its head and size (`push`, `pop` raising on empty, `peek`),
a binary search tree inserted into iteratively, walked in order by recursion and measured for
height, and a long chain built and dropped in compiled code (its release iterative). One source
run with pyjit, with Numba where it is installed, and in CPython (plain classes)."""
from collections import OrderedDict

import numpy as np
import pytest

import pyjit
from util import assert_same, numba_or_none

SOURCE = '''
node_type = deferred_type()

spec = OrderedDict()
spec["data"] = int64
spec["next"] = optional(node_type)


@jitclass(spec)
class ListNode:
    def __init__(self, data, next):
        self.data = data
        self.next = next

    def prepend(self, data):
        return ListNode(data, self)


node_type.define(ListNode.class_type.instance_type)


@njit
def single_node(data):
    return ListNode(data, None)


@njit
def fill_from_list(arr):
    head = single_node(0)
    for i in range(1, arr.size):
        head = head.prepend(i * i)
    count = 0
    while head is not None:
        arr[count] = head.data
        head = head.next
        count += 1
    return count


@njit
def chain_sum(n):
    head = single_node(0)
    for i in range(1, n):
        head = head.prepend(i)
    total = 0
    cur = head
    while cur is not None:
        total += cur.data
        cur = cur.next
    return total


frame_type = deferred_type()


@jitclass([("value", float64), ("below", optional(frame_type))])
class Frame:
    def __init__(self, value, below):
        self.value = value
        self.below = below


frame_type.define(Frame.class_type.instance_type)


@jitclass([("top", optional(Frame.class_type.instance_type)), ("size", int64)])
class Stack:
    def __init__(self):
        self.top = None
        self.size = 0

    def push(self, value):
        self.top = Frame(value, self.top)
        self.size += 1

    def pop(self):
        frame = self.top
        if frame is None:
            raise IndexError("pop from an empty stack")
        self.top = frame.below
        self.size -= 1
        return frame.value

    def peek(self):
        frame = self.top
        if frame is None:
            return np.nan
        return frame.value


@njit
def rpn(tokens, numbers):
    # reverse Polish notation: 0 pushes the next number, 1..4 apply + - * /
    st = Stack()
    k = 0
    for t in tokens:
        if t == 0:
            st.push(numbers[k])
            k += 1
        else:
            b = st.pop()
            a = st.pop()
            if t == 1:
                st.push(a + b)
            elif t == 2:
                st.push(a - b)
            elif t == 3:
                st.push(a * b)
            else:
                st.push(a / b)
    return st.pop(), st.size, st.peek()


@njit
def pop_too_many(n):
    st = Stack()
    for i in range(n):
        st.push(float(i))
    total = 0.0
    for i in range(n + 1):
        total += st.pop()
    return total


tree_type = deferred_type()


@jitclass([("key", float64), ("count", int64), ("left", optional(tree_type)),
           ("right", optional(tree_type))])
class TreeNode:
    def __init__(self, key):
        self.key = key
        self.count = 1
        self.left = None
        self.right = None


tree_type.define(TreeNode.class_type.instance_type)


@njit
def tree_insert(root, key):
    node = root
    while True:
        if key == node.key:
            node.count += 1
            return
        if key < node.key:
            if node.left is None:
                node.left = TreeNode(key)
                return
            node = node.left
        else:
            if node.right is None:
                node.right = TreeNode(key)
                return
            node = node.right


@njit
def in_order(node, keys, counts):
    if node is None:
        return
    in_order(node.left, keys, counts)
    keys.append(node.key)
    counts.append(node.count)
    in_order(node.right, keys, counts)


@njit
def height(node):
    if node is None:
        return 0
    return 1 + max(height(node.left), height(node.right))


@njit
def tree_sort(values):
    root = TreeNode(values[0])
    for v in values[1:]:
        tree_insert(root, v)
    keys = [0.0]
    counts = [0]
    keys.pop()
    counts.pop()
    in_order(root, keys, counts)
    return np.array(keys), np.array(counts), height(root)
'''


class _Deferred:
    def define(self, t):
        pass


def _namespace(flavour):
    ns = {"np": np, "OrderedDict": OrderedDict}
    lib = pytest.importorskip("numba") if flavour == "numba" else pyjit
    experimental = __import__(f"{lib.__name__}.experimental", fromlist=["jitclass"])
    ns.update(njit=lib.njit, jitclass=experimental.jitclass, deferred_type=lib.deferred_type,
              optional=lib.optional, int64=lib.int64, float64=lib.float64)
    exec(compile(SOURCE, f"<linked, {flavour}>", "exec"), ns)  # noqa: S102
    return ns


def _python_namespace():
    """The source as plain Python: the decorators are the identity and the type declarations,
    which read class_type.instance_type, are dropped."""
    src = SOURCE.replace("node_type.define(ListNode.class_type.instance_type)", "") \
        .replace("frame_type.define(Frame.class_type.instance_type)", "") \
        .replace("tree_type.define(TreeNode.class_type.instance_type)", "") \
        .replace("optional(Frame.class_type.instance_type)", "optional(None)")
    ns = {"np": np, "OrderedDict": OrderedDict, "njit": lambda f: f,
          "jitclass": lambda spec: (lambda cls: cls), "deferred_type": _Deferred,
          "optional": lambda t: None, "int64": None, "float64": None}
    exec(compile(src, "<linked, python>", "exec"), ns)  # noqa: S102
    return ns


@pytest.fixture(scope="module")
def flavours():
    found = {"pyjit": _namespace("pyjit"), "python": _python_namespace()}
    if numba_or_none(pyjit.njit(lambda: 0)) is not None:
        found["numba"] = _namespace("numba")
    return found


KEYS = np.round(np.random.default_rng(17).normal(size=40), 1)   # repeated keys too
CASES = [
    ("fill_from_list", lambda ns: (ns["fill_from_list"](a := np.zeros(12, np.int64)), a)),
    ("chain_sum", lambda ns: ns["chain_sum"](500)),
    ("rpn", lambda ns: ns["rpn"](np.array([0, 0, 1, 0, 3, 0, 0, 2, 4]),
                                 np.array([2.0, 3.0, 4.0, 10.0, 6.0]))),
    ("tree_sort", lambda ns: ns["tree_sort"](KEYS)),
]


@pytest.mark.parametrize("name, run", CASES, ids=[c[0] for c in CASES])
def test_same_as_cpython_and_numba(flavours, name, run):
    expected = run(flavours["python"])
    for flavour in ("pyjit", "numba"):
        if flavour in flavours:
            assert_same(expected, run(flavours[flavour]), where=f"{name} ({flavour})")


def test_stack_errors_and_python_side(flavours):
    ns = flavours["pyjit"]
    with pytest.raises(IndexError, match="pop from an empty stack"):
        ns["pop_too_many"](3)
    node = ns["ListNode"](1, None)
    assert node.next is None
    node.next = ns["ListNode"](2, None)
    assert node.next.data == 2 and node.prepend(0).next.data == 1
    with pytest.raises(TypeError, match="cannot set ListNode.next"):
        node.next = 5


def test_long_chains_are_released(flavours):
    # a million nodes built and dropped in compiled code: freed one after another, not by a
    # recursion as deep as the chain
    assert flavours["pyjit"]["chain_sum"](1_000_000) == 1_000_000 * 999_999 // 2


def test_undefined_deferred_type_is_a_clear_error():
    node_type = pyjit.deferred_type()

    @pyjit.experimental.jitclass([("x", pyjit.int64), ("next", pyjit.optional(node_type))])
    class Half:
        def __init__(self):
            self.x = 1
    with pytest.raises(TypeError, match="deferred_type of field.s. next is not defined yet"):
        Half()
