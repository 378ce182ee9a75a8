"""Real-world patterns: computational geometry and robot kinematics as public projects write them.

Geometry: orientation and in-circle predicates, the shoelace area and centroid, segment
intersection returning a point or None, Sutherland-Hodgman clipping over lists of (x, y) tuples,
Graham's scan ordering by `np.lexsort` of angles and distances with a list as a stack, rotating-caliper
diameters, closest pairs by divide and conquer (recursion over index arrays sorted by x), a
Bowyer-Watson Delaunay triangulation (triangles as tuples in a list, the cavity's edges counted
in a dict of sorted pairs), barycentric point location, Moller-Trumbore ray/triangle hits over a
mesh, vertex normals through `np.cross` of stacked edge vectors, and a k-d tree built recursively
into preallocated arrays and searched with an explicit stack.

Robotics: quaternions as 4-tuples (Hamilton product, axis-angle, rotation of vectors, slerp, to
and from rotation matrices with the usual trace branches), ZYX Euler angles, Denavit-Hartenberg
forward kinematics (`np.eye(4)` chained by `@`), a numerical Jacobian and damped least-squares
inverse kinematics through `np.linalg.solve`, two-link analytic IK with elbow up/down, CCD for a
planar chain, differential-drive odometry, pure-pursuit steering, occupancy-grid log-odds updates
along Bresenham rays, and A* over a grid with `heapq` of (f, g, row, col) tuples.
Restated in our own words with the import switched to pyjit; each is compared with CPython.
"""
import heapq
import math

import numpy as np
import pytest

from pyjit import njit
from util import case_name, check_case


# --- predicates and polygons ----------------------------------------------------------------------

@njit
def orient2d(a, b, c):
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


@njit
def incircle(a, b, c, d):
    adx, ady = a[0] - d[0], a[1] - d[1]
    bdx, bdy = b[0] - d[0], b[1] - d[1]
    cdx, cdy = c[0] - d[0], c[1] - d[1]
    abdet = adx * bdy - bdx * ady
    bcdet = bdx * cdy - cdx * bdy
    cadet = cdx * ady - adx * cdy
    alift = adx * adx + ady * ady
    blift = bdx * bdx + bdy * bdy
    clift = cdx * cdx + cdy * cdy
    return alift * bcdet + blift * cadet + clift * abdet


@njit
def polygon_area_centroid(xy):
    n = xy.shape[0]
    a = 0.0
    cx = 0.0
    cy = 0.0
    for i in range(n):
        x0, y0 = xy[i]
        x1, y1 = xy[(i + 1) % n]
        cross = x0 * y1 - x1 * y0
        a += cross
        cx += (x0 + x1) * cross
        cy += (y0 + y1) * cross
    a *= 0.5
    if a == 0.0:
        return 0.0, (np.nan, np.nan)
    return abs(a), (cx / (6.0 * a), cy / (6.0 * a))


@njit
def segment_intersection(p1, p2, p3, p4):
    d = (p2[0] - p1[0]) * (p4[1] - p3[1]) - (p2[1] - p1[1]) * (p4[0] - p3[0])
    if d == 0.0:
        return None
    t = ((p3[0] - p1[0]) * (p4[1] - p3[1]) - (p3[1] - p1[1]) * (p4[0] - p3[0])) / d
    u = ((p3[0] - p1[0]) * (p2[1] - p1[1]) - (p3[1] - p1[1]) * (p2[0] - p1[0])) / d
    if 0.0 <= t <= 1.0 and 0.0 <= u <= 1.0:
        return (p1[0] + t * (p2[0] - p1[0]), p1[1] + t * (p2[1] - p1[1]))
    return None


@njit
def count_crossings(segs):
    hits = []
    for i in range(segs.shape[0]):
        for j in range(i + 1, segs.shape[0]):
            p = segment_intersection(segs[i, 0], segs[i, 1], segs[j, 0], segs[j, 1])
            if p is not None:
                hits.append((i, j, p[0], p[1]))
    return hits


@njit
def _inside(p, a, b):
    return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) >= 0.0


@njit
def _cut(p, q, a, b):
    dc = (a[0] - b[0], a[1] - b[1])
    dp = (p[0] - q[0], p[1] - q[1])
    n1 = a[0] * b[1] - a[1] * b[0]
    n2 = p[0] * q[1] - p[1] * q[0]
    n3 = 1.0 / (dc[0] * dp[1] - dc[1] * dp[0])
    return ((n1 * dp[0] - n2 * dc[0]) * n3, (n1 * dp[1] - n2 * dc[1]) * n3)


@njit
def clip_polygon(subject, clip):
    """Sutherland-Hodgman: the subject polygon clipped by a convex, counter-clockwise one."""
    output = [(subject[i, 0], subject[i, 1]) for i in range(subject.shape[0])]
    for k in range(clip.shape[0]):
        a = (clip[k - 1, 0], clip[k - 1, 1])
        b = (clip[k, 0], clip[k, 1])
        inputs = output
        output = [(0.0, 0.0) for _ in range(0)]
        if len(inputs) == 0:
            break
        s = inputs[-1]
        for e in inputs:
            if _inside(e, a, b):
                if not _inside(s, a, b):
                    output.append(_cut(s, e, a, b))
                output.append(e)
            elif _inside(s, a, b):
                output.append(_cut(s, e, a, b))
            s = e
    res = np.empty((len(output), 2))
    for i, (x, y) in enumerate(output):
        res[i, 0] = x
        res[i, 1] = y
    return res


@njit
def graham_scan(points):
    start = 0
    for i in range(1, points.shape[0]):
        if (points[i, 1], points[i, 0]) < (points[start, 1], points[start, 0]):
            start = i
    x0, y0 = points[start]
    ang = np.arctan2(points[:, 1] - y0, points[:, 0] - x0)
    d2 = (points[:, 0] - x0) ** 2 + (points[:, 1] - y0) ** 2
    rest = [i for i in np.lexsort((d2, ang)) if i != start]
    hull = [start]
    for i in rest:
        while len(hull) > 1 and orient2d(points[hull[-2]], points[hull[-1]], points[i]) <= 0:
            hull.pop()
        hull.append(i)
    return np.array(hull)


@njit
def hull_diameter(points):
    hull = points[graham_scan(points)]
    n = hull.shape[0]
    if n == 1:
        return 0.0, 0, 0
    if n == 2:
        return np.sqrt(((hull[0] - hull[1]) ** 2).sum()), 0, 1
    best = 0.0
    bi = bj = 0
    j = 1
    for i in range(n):
        ni = (i + 1) % n
        while True:
            nj = (j + 1) % n
            if abs(orient2d(hull[i], hull[ni], hull[nj])) > abs(orient2d(hull[i], hull[ni], hull[j])):
                j = nj
            else:
                break
        for k in (i, ni):
            d = math.hypot(hull[k, 0] - hull[j, 0], hull[k, 1] - hull[j, 1])
            if d > best:
                best, bi, bj = d, k, j
    return best, min(bi, bj), max(bi, bj)


@njit
def _closest_rec(px, idx_x, idx_y):
    n = idx_x.size
    if n <= 3:
        best = np.inf
        pair = (-1, -1)
        for a in range(n):
            for b in range(a + 1, n):
                i, j = idx_x[a], idx_x[b]
                d = math.hypot(px[i, 0] - px[j, 0], px[i, 1] - px[j, 1])
                if d < best:
                    best = d
                    pair = (min(i, j), max(i, j))
        return best, pair
    mid = n // 2
    xmid = px[idx_x[mid], 0]
    left = idx_x[:mid]
    in_left = np.zeros(px.shape[0], dtype=np.bool_)
    in_left[left] = True
    ly = idx_y[in_left[idx_y]]
    ry = idx_y[~in_left[idx_y]]
    dl, pl = _closest_rec(px, left, ly)
    dr, pr = _closest_rec(px, idx_x[mid:], ry)
    if dl <= dr:
        best, pair = dl, pl
    else:
        best, pair = dr, pr
    strip = idx_y[np.abs(px[idx_y, 0] - xmid) < best]
    for a in range(strip.size):
        b = a + 1
        while b < strip.size and px[strip[b], 1] - px[strip[a], 1] < best:
            i, j = strip[a], strip[b]
            d = math.hypot(px[i, 0] - px[j, 0], px[i, 1] - px[j, 1])
            if d < best:
                best = d
                pair = (min(i, j), max(i, j))
            b += 1
    return best, pair


@njit
def closest_pair(points):
    idx_x = np.argsort(points[:, 0], kind='mergesort')
    idx_y = np.argsort(points[:, 1], kind='mergesort')
    return _closest_rec(points, idx_x, idx_y)


@njit
def _circumcircle(p, tri):
    ax, ay = p[tri[0]]
    bx, by = p[tri[1]]
    cx, cy = p[tri[2]]
    d = 2.0 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by))
    ux = ((ax * ax + ay * ay) * (by - cy) + (bx * bx + by * by) * (cy - ay)
          + (cx * cx + cy * cy) * (ay - by)) / d
    uy = ((ax * ax + ay * ay) * (cx - bx) + (bx * bx + by * by) * (ax - cx)
          + (cx * cx + cy * cy) * (bx - ax)) / d
    return ux, uy, (ax - ux) ** 2 + (ay - uy) ** 2


@njit
def bowyer_watson(points):
    n = points.shape[0]
    lo = np.array([points[:, 0].min(), points[:, 1].min()])
    hi = np.array([points[:, 0].max(), points[:, 1].max()])
    span = max(hi[0] - lo[0], hi[1] - lo[1]) * 10.0
    mid = (lo + hi) / 2.0
    p = np.empty((n + 3, 2))
    p[:n] = points
    p[n] = (mid[0] - span, mid[1] - span)
    p[n + 1] = (mid[0] + span, mid[1] - span)
    p[n + 2] = (mid[0], mid[1] + span)
    tris = [(n, n + 1, n + 2)]
    for i in range(n):
        bad = []
        keep = []
        for t in tris:
            ux, uy, r2 = _circumcircle(p, t)
            if (p[i, 0] - ux) ** 2 + (p[i, 1] - uy) ** 2 < r2:
                bad.append(t)
            else:
                keep.append(t)
        edges = {}
        for t in bad:
            for a, b in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0])):
                key = (min(a, b), max(a, b))
                edges[key] = edges.get(key, 0) + 1
        for (a, b), cnt in edges.items():
            if cnt == 1:
                keep.append((a, b, i))
        tris = keep
    out = []
    for t in tris:
        if t[0] < n and t[1] < n and t[2] < n:
            s = sorted([t[0], t[1], t[2]])
            out.append((s[0], s[1], s[2]))
    out.sort()
    return np.array(out)


@njit
def barycentric_locate(points, tris, queries):
    found = np.full(queries.shape[0], -1, dtype=np.int64)
    weights = np.zeros((queries.shape[0], 3))
    for q in range(queries.shape[0]):
        px, py = queries[q]
        for t in range(tris.shape[0]):
            a, b, c = points[tris[t, 0]], points[tris[t, 1]], points[tris[t, 2]]
            det = (b[1] - c[1]) * (a[0] - c[0]) + (c[0] - b[0]) * (a[1] - c[1])
            l1 = ((b[1] - c[1]) * (px - c[0]) + (c[0] - b[0]) * (py - c[1])) / det
            l2 = ((c[1] - a[1]) * (px - c[0]) + (a[0] - c[0]) * (py - c[1])) / det
            l3 = 1.0 - l1 - l2
            if l1 >= 0 and l2 >= 0 and l3 >= 0:
                found[q] = t
                weights[q] = l1, l2, l3
                break
    return found, weights


@njit
def ray_mesh_hits(orig, dirs, verts, faces, eps=1e-9):
    """Nearest hit distance of each ray over all triangles (Moller-Trumbore), inf if none."""
    best = np.full(dirs.shape[0], np.inf)
    which = np.full(dirs.shape[0], -1)
    for r in range(dirs.shape[0]):
        d = dirs[r]
        for f in range(faces.shape[0]):
            v0 = verts[faces[f, 0]]
            e1 = verts[faces[f, 1]] - v0
            e2 = verts[faces[f, 2]] - v0
            h = np.cross(d, e2)
            a = np.dot(e1, h)
            if -eps < a < eps:
                continue
            fi = 1.0 / a
            s = orig - v0
            u = fi * np.dot(s, h)
            if u < 0.0 or u > 1.0:
                continue
            q = np.cross(s, e1)
            v = fi * np.dot(d, q)
            if v < 0.0 or u + v > 1.0:
                continue
            t = fi * np.dot(e2, q)
            if eps < t < best[r]:
                best[r] = t
                which[r] = f
    return best, which


@njit
def vertex_normals(verts, faces):
    e1 = verts[faces[:, 1]] - verts[faces[:, 0]]
    e2 = verts[faces[:, 2]] - verts[faces[:, 0]]
    fn = np.cross(e1, e2)
    vn = np.zeros_like(verts)
    for f in range(faces.shape[0]):
        for k in range(3):
            vn[faces[f, k]] += fn[f]
    norms = np.sqrt((vn ** 2).sum(axis=1))
    norms[norms == 0] = 1.0
    return vn / norms.reshape(-1, 1), 0.5 * np.sqrt((fn ** 2).sum(axis=1)).sum()


@njit
def _kd_build(pts, idx, lo, hi, depth, node_idx, split, left, right, counter):
    if lo >= hi:
        return -1
    axis = depth % pts.shape[1]
    sub = idx[lo:hi]
    order = np.argsort(pts[sub, axis], kind='mergesort')
    idx[lo:hi] = sub[order]
    mid = (lo + hi) // 2
    node = counter[0]
    counter[0] += 1
    node_idx[node] = idx[mid]
    split[node] = axis
    left[node] = _kd_build(pts, idx, lo, mid, depth + 1, node_idx, split, left, right, counter)
    right[node] = _kd_build(pts, idx, mid + 1, hi, depth + 1, node_idx, split, left, right, counter)
    return node


@njit
def kd_nearest(pts, queries):
    n = pts.shape[0]
    idx = np.arange(n)
    node_idx = np.empty(n, dtype=np.int64)
    split = np.empty(n, dtype=np.int64)
    left = np.empty(n, dtype=np.int64)
    right = np.empty(n, dtype=np.int64)
    counter = np.zeros(1, dtype=np.int64)
    root = _kd_build(pts, idx, 0, n, 0, node_idx, split, left, right, counter)
    out = np.empty(queries.shape[0], dtype=np.int64)
    dist = np.empty(queries.shape[0])
    for q in range(queries.shape[0]):
        x = queries[q]
        best = np.inf
        best_i = -1
        stack = [root]
        while len(stack) > 0:
            node = stack.pop()
            if node < 0:
                continue
            p = pts[node_idx[node]]
            d = np.sum((p - x) ** 2)
            if d < best or (d == best and node_idx[node] < best_i):
                best = d
                best_i = node_idx[node]
            ax = split[node]
            diff = x[ax] - p[ax]
            near, far = (left[node], right[node]) if diff < 0 else (right[node], left[node])
            if diff * diff <= best:
                stack.append(far)
            stack.append(near)
        out[q] = best_i
        dist[q] = math.sqrt(best)
    return out, dist


# --- rotations and kinematics ---------------------------------------------------------------------

@njit
def qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return (w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2)


@njit
def qconj(q):
    return (q[0], -q[1], -q[2], -q[3])


@njit
def quat_from_axis_angle(axis, angle):
    n = np.linalg.norm(axis)
    s = math.sin(angle / 2.0) / n
    return (math.cos(angle / 2.0), axis[0] * s, axis[1] * s, axis[2] * s)


@njit
def rotate_vectors(q, v):
    out = np.empty_like(v)
    for i in range(v.shape[0]):
        p = (0.0, v[i, 0], v[i, 1], v[i, 2])
        r = qmul(qmul(q, p), qconj(q))
        out[i, 0], out[i, 1], out[i, 2] = r[1], r[2], r[3]
    return out


@njit
def slerp(q0, q1, ts):
    a = np.array(q0)
    b = np.array(q1)
    dot = np.dot(a, b)
    if dot < 0.0:
        b = -b
        dot = -dot
    out = np.empty((ts.size, 4))
    if dot > 0.9995:
        for i, t in enumerate(ts):
            r = a + t * (b - a)
            out[i] = r / np.linalg.norm(r)
        return out
    theta0 = math.acos(dot)
    s0 = math.sin(theta0)
    for i, t in enumerate(ts):
        theta = theta0 * t
        out[i] = (math.sin(theta0 - theta) / s0) * a + (math.sin(theta) / s0) * b
    return out


@njit
def quat_to_matrix(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


@njit
def matrix_to_quat(m):
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        q = (0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s)
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        q = ((m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s)
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        q = ((m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s)
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
        q = ((m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s)
    if q[0] < 0:
        q = (-q[0], -q[1], -q[2], -q[3])
    return q


@njit
def round_trip_quats(qs):
    out = np.empty_like(qs)
    for i in range(qs.shape[0]):
        q = (qs[i, 0], qs[i, 1], qs[i, 2], qs[i, 3])
        out[i] = matrix_to_quat(quat_to_matrix(q))
    return out


@njit
def euler_zyx_to_matrix(yaw, pitch, roll):
    cy, sy = np.cos(yaw), np.sin(yaw)
    cp, sp = np.cos(pitch), np.sin(pitch)
    cr, sr = np.cos(roll), np.sin(roll)
    Rz = np.array([[cy, -sy, 0.0], [sy, cy, 0.0], [0.0, 0.0, 1.0]])
    Ry = np.array([[cp, 0.0, sp], [0.0, 1.0, 0.0], [-sp, 0.0, cp]])
    Rx = np.array([[1.0, 0.0, 0.0], [0.0, cr, -sr], [0.0, sr, cr]])
    return Rz @ Ry @ Rx


@njit
def matrix_to_euler_zyx(R):
    sp = -R[2, 0]
    if abs(sp) >= 1.0:
        pitch = math.copysign(math.pi / 2, sp)
        yaw = math.atan2(-R[0, 1], R[1, 1])
        roll = 0.0
    else:
        pitch = math.asin(sp)
        yaw = math.atan2(R[1, 0], R[0, 0])
        roll = math.atan2(R[2, 1], R[2, 2])
    return yaw, pitch, roll


@njit
def dh_matrix(theta, d, a, alpha):
    ct, st = math.cos(theta), math.sin(theta)
    ca, sa = math.cos(alpha), math.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct],
                     [st, ct * ca, -ct * sa, a * st],
                     [0.0, sa, ca, d],
                     [0.0, 0.0, 0.0, 1.0]])


@njit
def forward_kinematics(q, dh):
    T = np.eye(4)
    frames = np.empty((q.size, 3))
    for i in range(q.size):
        d, a, alpha, offset = dh[i]
        T = T @ dh_matrix(q[i] + offset, d, a, alpha)
        frames[i] = T[:3, 3]
    return T, frames


@njit
def numeric_jacobian(q, dh, h=1e-6):
    T0, _ = forward_kinematics(q, dh)
    J = np.empty((3, q.size))
    for i in range(q.size):
        dq = q.copy()
        dq[i] += h
        T1, _ = forward_kinematics(dq, dh)
        J[:, i] = (T1[:3, 3] - T0[:3, 3]) / h
    return J


@njit
def dls_ik(target, q0, dh, lam=0.05, iters=60):
    q = q0.copy()
    for it in range(iters):
        T, _ = forward_kinematics(q, dh)
        err = target - T[:3, 3]
        if np.linalg.norm(err) < 1e-9:
            break
        J = numeric_jacobian(q, dh)
        A = J @ J.T + lam * lam * np.eye(3)
        q += J.T @ np.linalg.solve(A, err)
    T, _ = forward_kinematics(q, dh)
    return q, np.linalg.norm(target - T[:3, 3])


@njit
def two_link_ik(x, y, l1, l2, elbow_up=True):
    c2 = (x * x + y * y - l1 * l1 - l2 * l2) / (2 * l1 * l2)
    if c2 < -1.0 or c2 > 1.0:
        return None
    s2 = math.sqrt(1.0 - c2 * c2)
    if not elbow_up:
        s2 = -s2
    t2 = math.atan2(s2, c2)
    t1 = math.atan2(y, x) - math.atan2(l2 * s2, l1 + l2 * c2)
    return t1, t2


@njit
def ik_many(targets, l1, l2):
    out = np.full((targets.shape[0], 4), np.nan)
    for i in range(targets.shape[0]):
        up = two_link_ik(targets[i, 0], targets[i, 1], l1, l2)
        down = two_link_ik(targets[i, 0], targets[i, 1], l1, l2, elbow_up=False)
        if up is not None:
            out[i, 0], out[i, 1] = up
        if down is not None:
            out[i, 2:] = down
    return out


@njit
def ccd_planar(lengths, target, iters=50, tol=1e-6):
    n = lengths.size
    angles = np.zeros(n)
    pos = np.zeros((n + 1, 2))
    for it in range(iters):
        acc = 0.0
        for i in range(n):
            acc += angles[i]
            pos[i + 1, 0] = pos[i, 0] + lengths[i] * math.cos(acc)
            pos[i + 1, 1] = pos[i, 1] + lengths[i] * math.sin(acc)
        if math.hypot(pos[n, 0] - target[0], pos[n, 1] - target[1]) < tol:
            return angles, it
        for i in range(n - 1, -1, -1):
            to_end = pos[n] - pos[i]
            to_tgt = target - pos[i]
            a = math.atan2(to_tgt[1], to_tgt[0]) - math.atan2(to_end[1], to_end[0])
            angles[i] += a
            acc = 0.0
            for k in range(n):
                acc += angles[k]
                pos[k + 1, 0] = pos[k, 0] + lengths[k] * math.cos(acc)
                pos[k + 1, 1] = pos[k, 1] + lengths[k] * math.sin(acc)
    return angles, iters


@njit
def diff_drive_odometry(ticks_l, ticks_r, ticks_per_m, base, pose0=(0.0, 0.0, 0.0)):
    x, y, th = pose0
    path = np.empty((ticks_l.size + 1, 3))
    path[0] = x, y, th
    for k in range(ticks_l.size):
        dl = ticks_l[k] / ticks_per_m
        dr = ticks_r[k] / ticks_per_m
        dc = 0.5 * (dl + dr)
        dth = (dr - dl) / base
        if abs(dth) < 1e-12:
            x += dc * math.cos(th)
            y += dc * math.sin(th)
        else:
            r = dc / dth
            x += r * (math.sin(th + dth) - math.sin(th))
            y -= r * (math.cos(th + dth) - math.cos(th))
        th = (th + dth + math.pi) % (2 * math.pi) - math.pi
        path[k + 1] = x, y, th
    return path


@njit
def pure_pursuit(path, pose, lookahead, wheelbase):
    x, y, yaw = pose
    d = np.hypot(path[:, 0] - x, path[:, 1] - y)
    start = np.argmin(d)
    goal = path.shape[0] - 1
    for i in range(start, path.shape[0]):
        if d[i] >= lookahead:
            goal = i
            break
    gx, gy = path[goal]
    alpha = math.atan2(gy - y, gx - x) - yaw
    ld = math.hypot(gx - x, gy - y)
    return math.atan2(2.0 * wheelbase * math.sin(alpha), ld), goal


@njit
def bresenham(x0, y0, x1, y1):
    cells = []
    dx = abs(x1 - x0)
    dy = -abs(y1 - y0)
    sx = 1 if x0 < x1 else -1
    sy = 1 if y0 < y1 else -1
    err = dx + dy
    while True:
        cells.append((x0, y0))
        if x0 == x1 and y0 == y1:
            break
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x0 += sx
        if e2 <= dx:
            err += dx
            y0 += sy
    return cells


@njit
def occupancy_update(logodds, pose_cell, ranges, angles, res, max_range, l_occ=0.85, l_free=-0.4):
    r0, c0 = pose_cell
    for k in range(ranges.size):
        rng_k = min(ranges[k], max_range)
        r1 = r0 + int(round(rng_k * math.sin(angles[k]) / res))
        c1 = c0 + int(round(rng_k * math.cos(angles[k]) / res))
        cells = bresenham(r0, c0, r1, c1)
        for r, c in cells[:-1]:
            if 0 <= r < logodds.shape[0] and 0 <= c < logodds.shape[1]:
                logodds[r, c] += l_free
        r, c = cells[-1]
        if ranges[k] < max_range and 0 <= r < logodds.shape[0] and 0 <= c < logodds.shape[1]:
            logodds[r, c] += l_occ
    np.clip(logodds, -5.0, 5.0, out=logodds)
    return 1.0 - 1.0 / (1.0 + np.exp(logodds))


@njit
def astar(grid, start, goal):
    rows, cols = grid.shape
    g = np.full(grid.shape, np.inf)
    parent = np.full((rows, cols, 2), -1, dtype=np.int64)
    g[start] = 0.0
    h0 = abs(start[0] - goal[0]) + abs(start[1] - goal[1])
    heap = [(float(h0), 0.0, start[0], start[1])]
    closed = np.zeros(grid.shape, dtype=np.bool_)
    moves = ((1, 0), (-1, 0), (0, 1), (0, -1))
    while heap:
        f, gc, r, c = heapq.heappop(heap)
        if closed[r, c]:
            continue
        closed[r, c] = True
        if (r, c) == goal:
            path = [(r, c)]
            while (r, c) != start:
                r, c = parent[r, c, 0], parent[r, c, 1]
                path.append((r, c))
            path.reverse()
            return gc, path
        for dr, dc in moves:
            nr, nc = r + dr, c + dc
            if 0 <= nr < rows and 0 <= nc < cols and grid[nr, nc] == 0 and not closed[nr, nc]:
                ng = gc + 1.0
                if ng < g[nr, nc]:
                    g[nr, nc] = ng
                    parent[nr, nc] = r, c
                    h = abs(nr - goal[0]) + abs(nc - goal[1])
                    heapq.heappush(heap, (ng + h, ng, nr, nc))
    return -1.0, [start]


# --- cases ----------------------------------------------------------------------------------------

rng = np.random.default_rng(5)
_pts = rng.uniform(0, 10, size=(25, 2))
_square = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]])
_star = np.array([[2.0, -1.0], [3.0, 2.0], [6.0, 2.5], [3.0, 3.5], [2.0, 6.0], [1.0, 3.5],
                  [-2.0, 2.5], [1.0, 2.0]])
_segs = rng.uniform(0, 5, size=(8, 2, 2))
_verts = np.array([[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [0., 0., 1.]])
_faces = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
_dh = np.array([[0.3, 0.0, np.pi / 2, 0.0], [0.0, 0.4, 0.0, np.pi / 2], [0.0, 0.35, 0.0, 0.0],
                [0.1, 0.0, 0.0, 0.0]])
_grid = np.zeros((8, 9), dtype=np.int64)
_grid[1:7, 4] = 1
_grid[3, 1:4] = 1
_qs = rng.normal(size=(6, 4))
_qs /= np.linalg.norm(_qs, axis=1)[:, None]
_qs[0] = [0.0, 1.0, 0.0, 0.0]
_qs[1] = [0.0, 0.0, 0.0, 1.0]
_qs[2] = [0.0, 0.0, 1.0, 0.0]
_path = np.column_stack((np.linspace(0, 10, 40), np.sin(np.linspace(0, 10, 40))))

CASES = [
    (orient2d, lambda: (np.array([0.0, 0.0]), np.array([1.0, 0.0]), np.array([0.3, 0.5]))),
    (incircle, lambda: ((0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.4, 0.4))),
    (polygon_area_centroid, lambda: (_star,)),
    (polygon_area_centroid, lambda: (np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]),)),
    (segment_intersection, lambda: ((0.0, 0.0), (2.0, 2.0), (0.0, 2.0), (2.0, 0.0))),
    (segment_intersection, lambda: ((0.0, 0.0), (1.0, 1.0), (0.0, 1.0), (1.0, 2.0))),
    (count_crossings, lambda: (_segs,)),
    (clip_polygon, lambda: (_star, _square)),
    (clip_polygon, lambda: (_square + 10.0, _square)),
    (graham_scan, lambda: (_pts,)),
    (hull_diameter, lambda: (_pts,)),
    (hull_diameter, lambda: (_square,)),
    (closest_pair, lambda: (_pts,)),
    (closest_pair, lambda: (rng.uniform(0, 100, size=(60, 2)),)),
    (bowyer_watson, lambda: (_pts[:12],)),
    (barycentric_locate, lambda: (_pts[:12], bowyer_watson.py_func(_pts[:12]),
                                  rng.uniform(2, 8, size=(6, 2)))),
    (ray_mesh_hits, lambda: (np.array([0.2, 0.2, -1.0]), np.array([[0.0, 0.0, 1.0],
                             [0.1, 0.05, 1.0], [0.0, 0.0, -1.0], [1.0, 1.0, 1.0]]), _verts, _faces)),
    (vertex_normals, lambda: (_verts, _faces)),
    (kd_nearest, lambda: (_pts, rng.uniform(0, 10, size=(10, 2)))),
    (kd_nearest, lambda: (rng.uniform(size=(30, 3)), rng.uniform(size=(5, 3)))),
    (qmul, lambda: ((1.0, 0.0, 0.0, 0.0), (0.5, 0.5, 0.5, 0.5))),
    (quat_from_axis_angle, lambda: (np.array([0.0, 0.0, 2.0]), np.pi / 3)),
    (rotate_vectors, lambda: (quat_from_axis_angle.py_func(np.array([1.0, 1.0, 0.0]), 0.7),
                              rng.normal(size=(5, 3)))),
    (slerp, lambda: ((1.0, 0.0, 0.0, 0.0), tuple(_qs[3]), np.linspace(0, 1, 5))),
    (slerp, lambda: (tuple(_qs[4]), tuple(_qs[4] * 0.99999 + 1e-5), np.linspace(0, 1, 3))),
    (round_trip_quats, lambda: (_qs,)),
    (euler_zyx_to_matrix, lambda: (0.3, -0.5, 1.2)),
    (matrix_to_euler_zyx, lambda: (euler_zyx_to_matrix.py_func(0.3, -0.5, 1.2),)),
    (matrix_to_euler_zyx, lambda: (euler_zyx_to_matrix.py_func(0.3, np.pi / 2, 0.0),)),
    (forward_kinematics, lambda: (np.array([0.1, -0.4, 0.8, 0.3]), _dh)),
    (dls_ik, lambda: (np.array([0.3, 0.2, 0.5]), np.array([0.1, 0.1, 0.1, 0.1]), _dh)),
    (ik_many, lambda: (np.array([[1.0, 1.0], [3.0, 0.0], [0.5, -0.2], [2.9, 0.1]]), 1.5, 1.5)),
    (ccd_planar, lambda: (np.array([1.0, 0.8, 0.5]), np.array([1.2, 1.1]))),
    (diff_drive_odometry, lambda: (rng.integers(90, 110, 20), rng.integers(90, 110, 20),
                                   1000.0, 0.3)),
    (diff_drive_odometry, lambda: (np.full(5, 100), np.full(5, 100), 1000.0, 0.3,
                                   (1.0, 2.0, 0.5))),
    (pure_pursuit, lambda: (_path, (0.5, 0.2, 0.1), 2.0, 0.5)),
    (pure_pursuit, lambda: (_path, (9.8, 0.0, 0.0), 5.0, 0.5)),
    (bresenham, lambda: (0, 0, 7, 3)),
    (bresenham, lambda: (5, 5, -2, 9)),
    (occupancy_update, lambda: (np.zeros((20, 20)), (10, 10), np.array([4.0, 6.0, 20.0, 2.5]),
                                np.array([0.0, 1.2, 2.5, -2.0]), 0.5, 8.0)),
    (astar, lambda: (_grid, (0, 0), (7, 8))),
    (astar, lambda: (np.ones((3, 3), dtype=np.int64) - np.eye(3, dtype=np.int64), (0, 0), (2, 2))),
]


@pytest.mark.parametrize("f, make", CASES, ids=[case_name(f) for f, _ in CASES])
def test_same_as_cpython(f, make):
    check_case(f, make)
