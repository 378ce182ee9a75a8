"""Real-world patterns: raster analysis and signal backtesting as two well-known packages write them.

Raster analysis after xarray-spatial's CPU kernels (`ngjit = jit(nopython=True, nogil=True)`
made once and applied everywhere): Horn's slope and aspect and a hillshade over 3x3 windows with
NaN edges, a focal mean through a circular kernel built by loops, a GDAL-style two-pass
proximity, zonal statistics keyed by zone in a dict, A* over a cost surface that picks the open
cell of least cost by scanning (`_min_cost_pixel_id`) with neighbour offsets in arrays and
barrier values, Perlin noise from a permutation table, and region labelling whose equality test
is chosen per argument type by the `generated_jit` replacement Numba's deprecation notice gave
(`overload(function, jit_options={'cache': False, 'nogil': True, 'nopython': True},
strict=False)`): integers compared exactly, floats within a tolerance.

Backtesting after vectorbt's Numba layer: enums as `typing.NamedTuple` instances read as
globals (`Direction.LongOnly`), an `order_nb` factory with keyword defaults building an `Order`
namedtuple, an execution step taking and returning namedtuple states, order records in an
aligned structured array filled through a record view passed to a helper, broadcasting of
scalar-like parameters by `flex_select_auto_nb` (0-d, a row, a column or a full array), rolling
means and adjusted/unadjusted EWMs with `minp=None`, stop exits after entries (trailing or not),
drawdowns with their durations, and annualised Sharpe and Sortino ratios over NaN-skipping means.

Flow routing after pysheds: kernels declared by signatures of type names (`UniTuple(int64, 8)`,
`boolean[:, :]`, `void(...)` for a recursion), `parallel=True` with nested `prange`, a catchment
grown from a list used as a stack over `a.flat`, and a priority flood whose queue's item type is
made in Python (`Tuple([from_dtype(dem.dtype), int64, ...])`) and passed in, the list made by
`typedlist.List.empty_list(tuple_type)` with `from numba.typed import typedlist`.
Restated in our own words with the import switched to pyjit; each is compared with CPython.
"""
import heapq
import math
import types
from typing import NamedTuple

import numpy as np
import pytest

import pyjit as nb
from pyjit import jit, njit, prange
from pyjit.extending import overload
from pyjit.np.numpy_support import from_dtype
from pyjit.typed import typedlist
from pyjit.types import Tuple, UniTuple, boolean, float64, int64, void
from util import case_name, check_case, same_as_cpython

ngjit = jit(nopython=True, nogil=True)


# --- raster kernels ---------------------------------------------------------------------------

@ngjit
def slope_horn(data, cellsize_x, cellsize_y):
    out = np.full(data.shape, np.nan, dtype=np.float32)
    rows, cols = data.shape
    for y in range(1, rows - 1):
        for x in range(1, cols - 1):
            a, b, c = data[y - 1, x - 1], data[y - 1, x], data[y - 1, x + 1]
            d, f = data[y, x - 1], data[y, x + 1]
            g, h, i = data[y + 1, x - 1], data[y + 1, x], data[y + 1, x + 1]
            dz_dx = ((c + 2 * f + i) - (a + 2 * d + g)) / (8 * cellsize_x)
            dz_dy = ((g + 2 * h + i) - (a + 2 * b + c)) / (8 * cellsize_y)
            p = (dz_dx * dz_dx + dz_dy * dz_dy) ** .5
            out[y, x] = np.arctan(p) * 57.29578
    return out


@ngjit
def aspect_horn(data):
    out = np.full(data.shape, np.nan, dtype=np.float64)
    rows, cols = data.shape
    for y in range(1, rows - 1):
        for x in range(1, cols - 1):
            a, b, c = data[y - 1, x - 1], data[y - 1, x], data[y - 1, x + 1]
            d, f = data[y, x - 1], data[y, x + 1]
            g, h, i = data[y + 1, x - 1], data[y + 1, x], data[y + 1, x + 1]
            dz_dx = ((c + 2 * f + i) - (a + 2 * d + g)) / 8
            dz_dy = ((g + 2 * h + i) - (a + 2 * b + c)) / 8
            if dz_dx == 0 and dz_dy == 0:
                out[y, x] = -1.
            else:
                asp = np.arctan2(dz_dy, -dz_dx) * 57.29578
                if asp < 0:
                    out[y, x] = 90.0 - asp
                elif asp > 90.0:
                    out[y, x] = 360.0 - asp + 90.0
                else:
                    out[y, x] = 90.0 - asp
    return out


@ngjit
def hillshade(data, azimuth=225, angle_altitude=25):
    azimuth = 360.0 - azimuth
    x, y = np.gradient(data)
    slope = np.pi / 2. - np.arctan(np.sqrt(x * x + y * y))
    aspect = np.arctan2(-x, y)
    azimuthrad = azimuth * np.pi / 180.
    altituderad = angle_altitude * np.pi / 180.
    shaded = np.sin(altituderad) * np.sin(slope) + np.cos(altituderad) * np.cos(slope) * np.cos(
        (azimuthrad - np.pi / 2.) - aspect)
    result = (shaded + 1) / 2
    result[np.array([0, -1]), :] = np.nan
    result[:, np.array([0, -1])] = np.nan
    return result


@ngjit
def circle_kernel(cellsize_x, cellsize_y, radius):
    nx = int(radius / cellsize_x)
    ny = int(radius / cellsize_y)
    kernel = np.zeros((2 * ny + 1, 2 * nx + 1))
    for j in range(-ny, ny + 1):
        for i in range(-nx, nx + 1):
            if (i * cellsize_x) ** 2 + (j * cellsize_y) ** 2 <= radius * radius:
                kernel[j + ny, i + nx] = 1.0
    return kernel


@ngjit
def focal_mean(data, kernel):
    rows, cols = data.shape
    kr, kc = kernel.shape
    hr, hc = kr // 2, kc // 2
    out = np.full((rows, cols), np.nan)
    for y in range(rows):
        for x in range(cols):
            total = 0.0
            count = 0.0
            for j in range(kr):
                for i in range(kc):
                    yy = y + j - hr
                    xx = x + i - hc
                    if 0 <= yy < rows and 0 <= xx < cols and kernel[j, i] != 0:
                        v = data[yy, xx]
                        if not np.isnan(v):
                            total += v * kernel[j, i]
                            count += kernel[j, i]
            if count > 0:
                out[y, x] = total / count
    return out


@ngjit
def _dist(x1, x2, y1, y2, metric):
    if metric == 0:
        return math.sqrt((x1 - x2) ** 2 + (y1 - y2) ** 2)
    return abs(x1 - x2) + abs(y1 - y2)


@ngjit
def proximity(img, target_values, max_distance, metric):
    """Distance to the nearest target cell by passes from each corner (GDAL's scheme)."""
    h, w = img.shape
    near_y = np.full((h, w), -1, dtype=np.int64)
    near_x = np.full((h, w), -1, dtype=np.int64)
    for y in range(h):
        for x in range(w):
            v = img[y, x]
            is_target = False
            if target_values.size == 0:
                is_target = v != 0 and np.isfinite(v)
            else:
                for t in target_values:
                    if v == t:
                        is_target = True
            if is_target:
                near_y[y, x] = y
                near_x[y, x] = x
    passes = ((0, h, 1, 0, w, 1), (0, h, 1, w - 1, -1, -1),
              (h - 1, -1, -1, 0, w, 1), (h - 1, -1, -1, w - 1, -1, -1))
    for _ in range(2):
        for y0, y1, dy, x0, x1, dx in passes:
            for y in range(y0, y1, dy):
                for x in range(x0, x1, dx):
                    for ny, nx in ((y - dy, x), (y, x - dx), (y - dy, x - dx), (y - dy, x + dx)):
                        if 0 <= ny < h and 0 <= nx < w and near_y[ny, nx] >= 0:
                            cy, cx = near_y[ny, nx], near_x[ny, nx]
                            d = _dist(x, cx, y, cy, metric)
                            if near_y[y, x] < 0 or d < _dist(x, near_x[y, x], y, near_y[y, x], metric):
                                near_y[y, x] = cy
                                near_x[y, x] = cx
    out = np.full((h, w), np.nan, dtype=np.float32)
    for y in range(h):
        for x in range(w):
            if near_y[y, x] >= 0:
                d = _dist(x, near_x[y, x], y, near_y[y, x], metric)
                if d <= max_distance:
                    out[y, x] = d
    return out


@ngjit
def zonal_stats(zones, values, nodata=-1):
    stats = {}
    for z, v in zip(zones.ravel(), values.ravel()):
        if z == nodata or np.isnan(v):
            continue
        if z in stats:
            n, s, lo, hi = stats[z]
            stats[z] = (n + 1, s + v, min(lo, v), max(hi, v))
        else:
            stats[z] = (1, v, v, v)
    keys = sorted(stats.keys())
    out = np.empty((len(keys), 5))
    for k, z in enumerate(keys):
        n, s, lo, hi = stats[z]
        out[k] = z, n, s / n, lo, hi
    return out


NONE = -1


@ngjit
def _is_not_crossable(cell_value, barriers):
    if np.isnan(cell_value):
        return True
    for i in barriers:
        if cell_value == i:
            return True
    return False


@ngjit
def _min_cost_pixel_id(cost, is_open):
    height, width = cost.shape
    py = NONE
    px = NONE
    min_cost = np.inf
    for i in range(height):
        for j in range(width):
            if is_open[i, j] and cost[i, j] < min_cost:
                min_cost = cost[i, j]
                py = i
                px = j
    return py, px


@ngjit
def a_star_raster(data, start_py, start_px, goal_py, goal_px, barriers, neighbor_ys, neighbor_xs):
    height, width = data.shape
    parent_ys = np.ones((height, width), dtype=np.int64) * NONE
    parent_xs = np.ones((height, width), dtype=np.int64) * NONE
    parent_ys[start_py, start_px] = start_py
    parent_xs[start_py, start_px] = start_px
    g_cost = np.full((height, width), np.inf)
    g_cost[start_py, start_px] = 0.0
    f_cost = np.full((height, width), np.inf)
    f_cost[start_py, start_px] = math.hypot(goal_py - start_py, goal_px - start_px)
    is_open = np.zeros(data.shape, dtype=np.bool_)
    is_open[start_py, start_px] = True
    is_closed = np.zeros(data.shape, dtype=np.bool_)
    path = np.full(data.shape, np.nan)
    while True:
        py, px = _min_cost_pixel_id(f_cost, is_open)
        if py == NONE:
            return path
        if py == goal_py and px == goal_px:
            y, x = py, px
            while True:
                path[y, x] = g_cost[y, x]
                if parent_ys[y, x] == y and parent_xs[y, x] == x:
                    return path
                y, x = parent_ys[y, x], parent_xs[y, x]
        is_open[py, px] = False
        is_closed[py, px] = True
        for k in range(len(neighbor_ys)):
            ny = py + neighbor_ys[k]
            nx = px + neighbor_xs[k]
            if ny < 0 or ny >= height or nx < 0 or nx >= width:
                continue
            if is_closed[ny, nx] or _is_not_crossable(data[ny, nx], barriers):
                continue
            step = math.hypot(neighbor_ys[k], neighbor_xs[k]) * (data[py, px] + data[ny, nx]) / 2
            tentative = g_cost[py, px] + step
            if tentative < g_cost[ny, nx]:
                g_cost[ny, nx] = tentative
                f_cost[ny, nx] = tentative + math.hypot(goal_py - ny, goal_px - nx)
                parent_ys[ny, nx] = py
                parent_xs[ny, nx] = px
                is_open[ny, nx] = True


@njit
def _fade(t):
    return 6 * t ** 5 - 15 * t ** 4 + 10 * t ** 3


@njit
def _lerp(a, b, x):
    return a + x * (b - a)


@njit
def _gradient(h, x, y):
    vectors = np.array([[0, 1], [0, -1], [1, 0], [-1, 0]])
    g = vectors[h % 4]
    return g[:, :, 0] * x + g[:, :, 1] * y


@njit
def perlin(p, x0, x1, y0, y1, freq, shape):
    xs = np.linspace(x0, x1, shape[1]) * freq[0]
    ys = np.linspace(y0, y1, shape[0]) * freq[1]
    x = np.empty(shape)
    y = np.empty(shape)
    for i in range(shape[0]):
        x[i] = xs
    for j in range(shape[1]):
        y[:, j] = ys
    xi = x.astype(np.int64)
    yi = y.astype(np.int64)
    xf = x - xi
    yf = y - yi
    u = _fade(xf)
    v = _fade(yf)
    n00 = _gradient(p[p[xi] + yi], xf, yf)
    n01 = _gradient(p[p[xi] + yi + 1], xf, yf - 1)
    n11 = _gradient(p[p[xi + 1] + yi + 1], xf - 1, yf - 1)
    n10 = _gradient(p[p[xi + 1] + yi], xf - 1, yf)
    x1_ = _lerp(n00, n10, u)
    x2_ = _lerp(n01, n11, u)
    return _lerp(x1_, x2_, v)


def generated_jit(function=None, cache=False, pipeline_class=None, **options):
    """Numba's documented replacement for the removed generated_jit, as libraries copied it."""
    jit_options = dict()
    if pipeline_class is not None:
        jit_options['pipeline_class'] = pipeline_class
    jit_options['cache'] = cache
    jit_options |= options
    if function is not None:
        overload(function, jit_options=jit_options, strict=False)(function)
        return function

    def wrapper(func):
        overload(func, jit_options=jit_options, strict=False)(func)
        return func
    return wrapper


@generated_jit(nogil=True, nopython=True)
def is_close(reference, value):
    if isinstance(reference, nb.types.Integer) and isinstance(value, nb.types.Integer):
        return lambda reference, value: value == reference
    else:
        atol = 1e-8
        rtol = 1e-5
        return lambda reference, value: abs(value - reference) <= (atol + rtol * abs(reference))


@ngjit
def _find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@ngjit
def label_regions(values, mask):
    """Regions of 4-connected cells with close values; masked-out cells get 0."""
    ny, nx = values.shape
    flat = values.ravel()
    parent = np.arange(flat.size)
    for ij in range(flat.size):
        if not mask.flat[ij]:
            continue
        i, j = divmod(ij, nx)
        for other in (ij + 1 if j + 1 < nx else -1, ij + nx if i + 1 < ny else -1):
            if other >= 0 and mask.flat[other] and is_close(flat[ij], flat[other]):
                a, b = _find(parent, ij), _find(parent, other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    labels = np.zeros(flat.size, dtype=np.uint32)
    roots = {}
    for ij in range(flat.size):
        if mask.flat[ij]:
            r = _find(parent, ij)
            if r not in roots:
                roots[r] = len(roots) + 1
            labels[ij] = roots[r]
    return labels.reshape(ny, nx), len(roots)


# --- flow routing (a hydrology package's explicit-signature kernels) ---------------------------

@njit(int64[:, :](float64[:, :], float64, float64, UniTuple(int64, 8), boolean[:, :], int64, int64,
                  int64), parallel=True, cache=True)
def d8_flowdir(dem, dx, dy, dirmap, nodata_cells, nodata_out, flat=-1, pit=-2):
    fdir = np.full(dem.shape, nodata_out, dtype=np.int64)
    m, n = dem.shape
    dd = math.sqrt(dx ** 2 + dy ** 2)
    row_offsets = np.array([-1, -1, 0, 1, 1, 1, 0, -1])
    col_offsets = np.array([0, 1, 1, 1, 0, -1, -1, -1])
    distances = np.array([dy, dd, dx, dd, dy, dd, dx, dd])
    for i in prange(m):
        for j in prange(n):
            if not nodata_cells[i, j]:
                elev = dem[i, j]
                max_slope = -np.inf
                for k in range(8):
                    row = i + row_offsets[k]
                    col = j + col_offsets[k]
                    if row < 0 or row >= m or col < 0 or col >= n:
                        continue
                    slope = (elev - dem[row, col]) / distances[k]
                    if slope > max_slope:
                        fdir[i, j] = dirmap[k]
                        max_slope = slope
                if max_slope == 0:
                    fdir[i, j] = flat
                elif max_slope < 0:
                    fdir[i, j] = pit
    return fdir


@njit(boolean[:, :](int64[:, :], UniTuple(int64, 2), UniTuple(int64, 8)))
def d8_catchment(fdir, pour_point, dirmap):
    catch = np.zeros(fdir.shape, dtype=np.bool_)
    offset = fdir.shape[1]
    i, j = pour_point
    ix = (i * offset) + j
    offsets = np.array([-offset, 1 - offset, 1, 1 + offset, offset, -1 + offset, -1, -1 - offset])
    r_dirmap = np.array([dirmap[4], dirmap[5], dirmap[6], dirmap[7], dirmap[0], dirmap[1],
                         dirmap[2], dirmap[3]])
    queue = [ix]
    while queue:
        parent = queue.pop()
        catch.flat[parent] = True
        neighbors = offsets + parent
        for k in range(8):
            neighbor = neighbors[k]
            if catch.flat[neighbor]:
                continue
            if fdir.flat[neighbor] == r_dirmap[k]:
                queue.append(neighbor)
    return catch


@njit(void(int64, int64, float64[:, :], int64[:, :], int64[:]))
def _accumulate(startnode, endnode, acc, endnodes, indegree):
    acc.flat[endnode] += acc.flat[startnode]
    indegree[endnode] -= 1
    if indegree[endnode] == 0:
        _accumulate(endnode, endnodes.flat[endnode], acc, endnodes, indegree)


@njit(float64[:, :](float64[:, :], int64[:, :], int64[:], int64[:]))
def d8_accumulation(acc, endnodes, indegree, startnodes):
    for k in startnodes:
        endnode = endnodes.flat[k]
        if endnode != k:
            _accumulate(k, endnode, acc, endnodes, indegree)
    return acc


def priority_flood_types(func):
    """The queue's item type made in Python from the DEM's dtype and passed in."""
    def wrapper(dem, mask):
        tuple_type = Tuple([from_dtype(dem.dtype), int64, int64, int64])
        return func(dem, mask, tuple_type)
    return wrapper


@njit
def _priority_flood(dem, dem_mask, tuple_type):
    open_cells = typedlist.List.empty_list(tuple_type)
    closed = dem_mask.copy()
    order = 0
    y, x = dem.shape
    for i in range(y):
        for j in range(x):
            if (i == 0 or j == 0 or i == y - 1 or j == x - 1) and not closed[i, j]:
                open_cells.append((dem[i, j], order, i, j))
                order += 1
                closed[i, j] = True
    heapq.heapify(open_cells)
    filled = dem.copy()
    while open_cells:
        elv, _, i, j = heapq.heappop(open_cells)
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                r, c = i + di, j + dj
                if r < 0 or r >= y or c < 0 or c >= x or closed[r, c]:
                    continue
                closed[r, c] = True
                if filled[r, c] < elv:
                    filled[r, c] = elv
                heapq.heappush(open_cells, (filled[r, c], order, r, c))
                order += 1
    return filled


fill_depressions = priority_flood_types(_priority_flood)


# --- backtesting ------------------------------------------------------------------------------

class DirectionT(NamedTuple):
    LongOnly: int = 0
    ShortOnly: int = 1
    Both: int = 2


Direction = DirectionT()


class OrderStatusT(NamedTuple):
    Filled: int = 0
    Ignored: int = 1
    Rejected: int = 2


OrderStatus = OrderStatusT()


class Order(NamedTuple):
    size: float
    price: float
    fees: float
    direction: int


class ExecState(NamedTuple):
    cash: float
    position: float


class OrderResult(NamedTuple):
    size: float
    price: float
    fees: float
    side: int
    status: int


order_dt = np.dtype([('id', np.int64), ('col', np.int64), ('idx', np.int64), ('size', np.float64),
                     ('price', np.float64), ('fees', np.float64), ('side', np.int64)], align=True)


@njit
def order_nb(size=np.nan, price=np.inf, fees=0.0, direction=Direction.Both):
    return Order(float(size), float(price), float(fees), direction)


@njit
def flex_select_auto_nb(a, i, col):
    if a.ndim == 0:
        return a.item()
    if a.ndim == 1:
        return a[col if a.shape[0] > 1 else 0]
    return a[i if a.shape[0] > 1 else 0, col if a.shape[1] > 1 else 0]


@njit
def execute_order_nb(state, order):
    if np.isnan(order.size) or order.size == 0:
        return state, OrderResult(np.nan, np.nan, np.nan, -1, OrderStatus.Ignored)
    if order.size > 0:
        if order.direction == Direction.ShortOnly and state.position >= 0:
            return state, OrderResult(np.nan, np.nan, np.nan, -1, OrderStatus.Ignored)
        size = order.size
        if np.isinf(size):
            size = state.cash / (order.price * (1 + order.fees))
        cost = size * order.price
        fees = cost * order.fees
        if cost + fees > state.cash + 1e-9:
            return state, OrderResult(np.nan, np.nan, np.nan, -1, OrderStatus.Rejected)
        return (ExecState(state.cash - cost - fees, state.position + size),
                OrderResult(size, order.price, fees, 0, OrderStatus.Filled))
    size = -order.size
    if np.isinf(size):
        size = state.position
    if order.direction == Direction.LongOnly:
        size = min(size, state.position)
    if size <= 0:
        return state, OrderResult(np.nan, np.nan, np.nan, -1, OrderStatus.Ignored)
    value = size * order.price
    fees = value * order.fees
    return (ExecState(state.cash + value - fees, state.position - size),
            OrderResult(size, order.price, fees, 1, OrderStatus.Filled))


@njit
def fill_order_record_nb(record, record_id, i, col, result):
    record['id'] = record_id
    record['col'] = col
    record['idx'] = i
    record['size'] = result.size
    record['price'] = result.price
    record['fees'] = result.fees
    record['side'] = result.side


@njit
def simulate_from_signals_nb(close, entries, exits, size, fees, init_cash, direction):
    n, ncols = close.shape
    records = np.empty(n * ncols, dtype=order_dt)
    oidx = 0
    final = np.empty((ncols, 2))
    for col in range(ncols):
        state = ExecState(float(flex_select_auto_nb(init_cash, 0, col)), 0.0)
        for i in range(n):
            price = close[i, col]
            if np.isnan(price):
                continue
            sz = flex_select_auto_nb(size, i, col)
            fee = flex_select_auto_nb(fees, i, col)
            if entries[i, col] and not exits[i, col]:
                order = order_nb(size=sz, price=price, fees=fee, direction=direction)
            elif exits[i, col] and not entries[i, col]:
                order = order_nb(size=-np.inf, price=price, fees=fee, direction=direction)
            else:
                continue
            state, result = execute_order_nb(state, order)
            if result.status == OrderStatus.Filled:
                fill_order_record_nb(records[oidx], oidx, i, col, result)
                oidx += 1
        final[col, 0] = state.cash
        final[col, 1] = state.position
    return records[:oidx], final


@njit
def rolling_mean_1d_nb(a, window, minp=None):
    if minp is None:
        minp = window
    if minp > window:
        raise ValueError("minp must be <= window")
    out = np.empty_like(a, dtype=np.float64)
    cumsum = 0.0
    nancnt = 0
    for i in range(a.shape[0]):
        if np.isnan(a[i]):
            nancnt += 1
        else:
            cumsum += a[i]
        if i < window:
            window_len = i + 1 - nancnt
            window_cumsum = cumsum
        else:
            if np.isnan(a[i - window]):
                nancnt -= 1
            else:
                cumsum -= a[i - window]
            window_len = window - nancnt
            window_cumsum = cumsum
        if window_len < minp:
            out[i] = np.nan
        else:
            out[i] = window_cumsum / window_len
    return out


@njit
def rolling_mean_nb(a, window, minp=None):
    out = np.empty_like(a, dtype=np.float64)
    for col in range(a.shape[1]):
        out[:, col] = rolling_mean_1d_nb(a[:, col], window, minp=minp)
    return out


@njit
def ewm_mean_1d_nb(a, span, minp=0, adjust=False):
    alpha = 2 / (span + 1)
    out = np.empty_like(a, dtype=np.float64)
    old_wt_factor = 1. - alpha
    new_wt = 1. if adjust else alpha
    weighted_avg = a[0]
    is_observation = not np.isnan(weighted_avg)
    nobs = int(is_observation)
    out[0] = weighted_avg if nobs >= minp else np.nan
    old_wt = 1.
    for i in range(1, a.shape[0]):
        cur = a[i]
        is_observation = not np.isnan(cur)
        nobs += is_observation
        if not np.isnan(weighted_avg):
            old_wt *= old_wt_factor
            if is_observation:
                if weighted_avg != cur:
                    weighted_avg = ((old_wt * weighted_avg) + (new_wt * cur)) / (old_wt + new_wt)
                if adjust:
                    old_wt += new_wt
                else:
                    old_wt = 1.
        elif is_observation:
            weighted_avg = cur
        out[i] = weighted_avg if nobs >= minp else np.nan
    return out


@njit
def stop_exits_nb(entries, ts, stop, trailing):
    out = np.zeros_like(entries)
    for col in range(entries.shape[1]):
        i = 0
        while i < entries.shape[0]:
            if entries[i, col]:
                ref = ts[i, col]
                for j in range(i + 1, entries.shape[0]):
                    if trailing and ts[j, col] > ref:
                        ref = ts[j, col]
                    if ts[j, col] <= ref * (1 - stop):
                        out[j, col] = True
                        i = j
                        break
                else:
                    break
            i += 1
    return out


@njit
def drawdowns_nb(ts):
    peak_idx = 0
    peak = ts[0]
    out = []
    valley_idx = 0
    valley = ts[0]
    in_dd = False
    for i in range(1, ts.shape[0]):
        if ts[i] >= peak:
            if in_dd:
                out.append((peak_idx, valley_idx, i, (valley - peak) / peak))
                in_dd = False
            peak = ts[i]
            peak_idx = i
        else:
            if not in_dd or ts[i] < valley:
                valley = ts[i]
                valley_idx = i
            in_dd = True
    if in_dd:
        out.append((peak_idx, valley_idx, -1, (valley - peak) / peak))
    return out


@njit
def sharpe_sortino_nb(returns, ann_factor, risk_free=0.0, ddof=1):
    n, ncols = returns.shape
    out = np.empty((ncols, 2))
    for col in range(ncols):
        r = returns[:, col] - risk_free
        r = r[~np.isnan(r)]
        if r.size <= ddof:
            out[col] = np.nan
            continue
        mean = np.mean(r)
        std = np.sqrt(np.sum((r - mean) ** 2) / (r.size - ddof))
        out[col, 0] = mean / std * np.sqrt(ann_factor) if std > 0 else np.inf
        downside = np.minimum(r, 0.0)
        dd = np.sqrt(np.mean(downside ** 2))
        out[col, 1] = mean / dd * np.sqrt(ann_factor) if dd > 0 else np.inf
    return out


# --- cases ----------------------------------------------------------------------------------------

rng = np.random.default_rng(21)
_dem = np.cumsum(rng.uniform(0, 3, (9, 11)), axis=1) + np.linspace(0, 20, 9)[:, None]
_flat = np.full((5, 5), 3.0)
_nan_dem = _dem.copy()
_nan_dem[4, 4] = np.nan
_surf = rng.uniform(1, 4, (10, 12))
_surf[2:8, 6] = 0.0
_nb8 = (np.array([-1, -1, -1, 0, 0, 1, 1, 1]), np.array([-1, 0, 1, -1, 1, -1, 0, 1]))
_nb4 = (np.array([0, -1, 1, 0]), np.array([-1, 0, 0, 1]))
_close = np.cumprod(1 + rng.normal(0, 0.02, (40, 3)), axis=0) * 100
_close[5, 1] = np.nan
_entries = rng.uniform(size=(40, 3)) < 0.15
_exits = rng.uniform(size=(40, 3)) < 0.15
_perm = np.random.default_rng(9).permutation(64)
_perm = np.concatenate((_perm, _perm))
_ints = rng.integers(0, 3, (6, 8))
_floats = np.round(rng.uniform(0, 1, (6, 8)), 1)
_floats[2, 2] = _floats[2, 3] + 1e-9
_series = np.array([1.0, 2.0, np.nan, 4.0, 3.0, np.nan, np.nan, 7.0, 8.0, 6.0])

_DIRMAP = (64, 128, 1, 2, 4, 8, 16, 32)
_nodata = np.zeros(_dem.shape, dtype=np.bool_)
_nodata[0, 0] = True
_fdir = np.pad(np.where(np.isin(d8_flowdir.py_func(_dem[::-1].copy(), 30.0, 30.0, _DIRMAP, _nodata,
                                                   0, -1, -2), _DIRMAP),
                        d8_flowdir.py_func(_dem[::-1].copy(), 30.0, 30.0, _DIRMAP, _nodata, 0,
                                           -1, -2), 0), 1)


def _acc_inputs():
    dirs = np.array(_DIRMAP)
    drow = np.array([-1, -1, 0, 1, 1, 1, 0, -1])
    dcol = np.array([0, 1, 1, 1, 0, -1, -1, -1])
    ends = np.arange(_fdir.size).reshape(_fdir.shape)
    for i in range(_fdir.shape[0]):
        for j in range(_fdir.shape[1]):
            k = np.flatnonzero(dirs == _fdir[i, j])
            if k.size:
                ends[i, j] = (i + drow[k[0]]) * _fdir.shape[1] + j + dcol[k[0]]
    indegree = np.bincount(ends.ravel(), minlength=_fdir.size)
    indegree[np.arange(_fdir.size) == ends.ravel()] -= 1
    return ends, indegree, np.flatnonzero(indegree == 0)


CASES = [
    (slope_horn, lambda: (_dem, 30.0, 30.0)),
    (slope_horn, lambda: (_flat, 1.0, 2.0)),
    (aspect_horn, lambda: (_dem,)),
    (aspect_horn, lambda: (_flat,)),
    (hillshade, lambda: (_dem,)),
    (hillshade, lambda: (_dem, 315, 45)),
    (circle_kernel, lambda: (1.0, 1.0, 2.5)),
    (circle_kernel, lambda: (2.0, 1.0, 3.0)),
    (focal_mean, lambda: (_nan_dem, circle_kernel.py_func(1.0, 1.0, 1.5))),
    (proximity, lambda: ((rng.uniform(size=(8, 9)) < 0.1).astype(np.float64), np.zeros(0), np.inf, 0)),
    (proximity, lambda: (_ints.astype(np.float64), np.array([2.0]), 3.0, 1)),
    (zonal_stats, lambda: (_ints, _nan_dem[:6, :8])),
    (zonal_stats, lambda: (np.full((2, 2), -1), np.ones((2, 2)))),
    (a_star_raster, lambda: (_surf, 0, 0, 9, 11, np.array([0.0]), *_nb8)),
    (a_star_raster, lambda: (_surf, 0, 0, 9, 11, np.array([0.0]), *_nb4)),
    (a_star_raster, lambda: (np.where(np.arange(25).reshape(5, 5) % 5 == 2, 0.0, 1.0), 0, 0, 4, 4,
                             np.array([0.0]), *_nb8)),
    (perlin, lambda: (_perm, 0.0, 1.0, 0.0, 1.0, (4.0, 4.0), (12, 10))),
    (d8_flowdir, lambda: (_dem, 30.0, 30.0, _DIRMAP, _nodata, 0, -1, -2)),
    (d8_catchment, lambda: (_fdir, (9, 6), _DIRMAP)),
    (d8_catchment, lambda: (_fdir, (5, 5), _DIRMAP)),
    (d8_accumulation, lambda: (np.ones(_fdir.shape), *_acc_inputs())),
    (order_nb, lambda: ()),
    (order_nb, lambda: (5, 10.0, 0.001, Direction.LongOnly)),
    (flex_select_auto_nb, lambda: (np.array(3.5), 2, 1)),
    (flex_select_auto_nb, lambda: (np.array([1.0, 2.0, 3.0]), 2, 1)),
    (flex_select_auto_nb, lambda: (np.array([[1.0, 2.0, 3.0]]), 2, 1)),
    (flex_select_auto_nb, lambda: (np.arange(12.0).reshape(4, 3), 2, 1)),
    (execute_order_nb, lambda: (ExecState(100.0, 0.0), Order(np.inf, 10.0, 0.01, 2))),
    (execute_order_nb, lambda: (ExecState(100.0, 0.0), Order(20.0, 10.0, 0.0, 2))),
    (execute_order_nb, lambda: (ExecState(0.0, 3.0), Order(-np.inf, 10.0, 0.0, 0))),
    (execute_order_nb, lambda: (ExecState(0.0, 0.0), Order(-1.0, 10.0, 0.0, 0))),
    (simulate_from_signals_nb, lambda: (_close, _entries, _exits, np.array(np.inf), np.array(0.001),
                                        np.array([100.0, 1000.0, 50.0]), Direction.LongOnly)),
    (simulate_from_signals_nb, lambda: (_close, _entries, _exits, np.full((40, 3), 0.3),
                                        np.array([[0.0, 0.01, 0.002]]), np.array(1000.0),
                                        Direction.Both)),
    (rolling_mean_nb, lambda: (_close, 5)),
    (rolling_mean_nb, lambda: (np.column_stack((_series, _series[::-1])), 3, 1)),
    (ewm_mean_1d_nb, lambda: (_series, 3)),
    (ewm_mean_1d_nb, lambda: (_series, 4, 2, True)),
    (stop_exits_nb, lambda: (_entries, _close, 0.03, False)),
    (stop_exits_nb, lambda: (_entries, _close, 0.03, True)),
    (drawdowns_nb, lambda: (_close[:, 0],)),
    (drawdowns_nb, lambda: (np.array([1.0, 2.0, 3.0]),)),
    (sharpe_sortino_nb, lambda: (np.diff(_close, axis=0) / _close[:-1], 252.0)),
    (sharpe_sortino_nb, lambda: (np.array([[0.01], [np.nan]]), 252.0, 0.0, 1)),
]


@pytest.mark.parametrize("f, make", CASES, ids=[case_name(f) for f, _ in CASES])
def test_same_as_cpython(f, make):
    check_case(f, make)


def test_rolling_mean_refuses_minp_above_window():
    for f in (rolling_mean_1d_nb.py_func, rolling_mean_1d_nb):
        with pytest.raises(ValueError, match="minp must be <= window"):
            f(np.ones(5), 2, 3)


def _is_close_py(reference, value):
    if isinstance(reference, (int, np.integer)) and isinstance(value, (int, np.integer)):
        return value == reference
    return abs(value - reference) <= (1e-8 + 1e-5 * abs(reference))


@pytest.mark.parametrize("values, mask", [
    (_ints, np.ones(_ints.shape, dtype=np.bool_)),
    (_floats, rng.uniform(size=_floats.shape) > 0.2),
], ids=["ints", "floats"])
def test_label_regions_same_as_cpython(values, mask, monkeypatch):
    """In CPython the overloaded is_close is its typing function; the reference run gets the
    comparison it stands for (compiled first: the compiled code keeps the overload)."""
    got = label_regions(values, mask)
    monkeypatch.setitem(label_regions.py_func.__globals__, "is_close", _is_close_py)
    same_as_cpython(label_regions.py_func(values, mask), got)


def test_is_close_chooses_by_type():
    """The overload picks exact equality for integers and a tolerance for floats."""
    @ngjit
    def both(i, j, x, y):
        return is_close(i, j), is_close(x, y)
    assert both(3, 3, 1.0, 1.0 + 1e-9) == (True, True)
    assert both(3, 4, 1.0, 1.1) == (False, False)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_priority_flood_with_its_item_type_passed_in(dtype, monkeypatch):
    """The queue's item type is a pyjit type object passed from Python; each DEM dtype compiles
    its own version. CPython runs the same body on a plain list (the type is unused there)."""
    dem = _dem.astype(dtype)
    dem[4, 5] -= 5.0
    dem[6, 2] -= 3.0
    mask = np.zeros(dem.shape, dtype=np.bool_)
    got = fill_depressions(dem, mask)
    plain = types.SimpleNamespace(List=types.SimpleNamespace(empty_list=lambda item_type: []))
    monkeypatch.setitem(_priority_flood.py_func.__globals__, "typedlist", plain)
    want = _priority_flood.py_func(dem, mask, None)
    same_as_cpython(want, got)
    assert got.dtype == dtype and (got >= dem).all()

