"""Kernels of test_rw_cuda_science.py that hold assert statements: a module pytest does not
rewrite, so that the asserts reach the compiler as their authors wrote them."""


def distance_matrix(cuda):
    """The squared Euclidean distance matrix of points, one thread a pair, the grid checked to
    be the matrix's shape (a workshop's naive CUDA version)."""
    @cuda.jit
    def distance_matrix(points, result):
        number_of_points = points.shape[0]
        dimension = points.shape[1]
        assert result.shape[0] == number_of_points and result.shape[1] == number_of_points
        assert (
            cuda.gridDim.x == number_of_points
            and cuda.gridDim.y == number_of_points
            and cuda.gridDim.z == 1
        )
        row, col = cuda.grid(2)
        x = points[row]
        y = points[col]
        squared_distance = 0.0
        for index in range(0, dimension):
            squared_distance += (x[index] - y[index]) ** 2
        result[row][col] = squared_distance
    return distance_matrix
