__global__ void big() {           // NOLINT(tilefit-budget)
  __shared__ float tile[64][128]; // NOLINT: suppresses every check at this allocation
  // NOLINTNEXTLINE(tilefit-*)
  __shared__ float halo[1024];
}
// NOLINTBEGIN(tilefit-occupancy)
__global__ void a() {}
// NOLINTEND(tilefit-occupancy)
// NOLINTBEGIN
// NOLINTBEGIN(tilefit-static-limit, -tilefit-budget,clang-*)
// NOLINTEND
/* NOLINTNEXTLINE */ int x; // NOLINT()
// NOLINTEND(tilefit-static-limit, -tilefit-budget,clang-*)
