// The GPU's launch grids and copy shapes (lib/kernels/gpu_geometry.hpp), checked without a GPU:
// every grid stays within CUDA's limits and, with the kernels' strides, covers the whole tile.
#include <catch2/catch.hpp>
#include <cstdint>

#include "kernels/gpu_geometry.hpp"

namespace geo = tra::kernels::gpu_geometry;

TEST_CASE("grid-stride launches cap at 65,535 blocks and never launch none") {
    CHECK(geo::blocks_for(0) == 1);
    CHECK(geo::blocks_for(1) == 1);
    CHECK(geo::blocks_for(256) == 1);
    CHECK(geo::blocks_for(257) == 2);
    CHECK(geo::blocks_for(65535LL * 256) == 65535);
    CHECK(geo::blocks_for(65535LL * 256 + 1) == 65535);  // 16.7M + 1: the loop strides on
    CHECK(geo::blocks_for(std::int64_t(1) << 40) == 65535);
}

TEST_CASE("one block per row up to gridDim.x's limit, then no launch") {
    CHECK(geo::blocks_per_row(3) == 3u);
    CHECK(geo::blocks_per_row(3'000'000) == 3'000'000u);
    CHECK(geo::blocks_per_row(geo::kMaxGridX) == static_cast<unsigned>(geo::kMaxGridX));
    CHECK_FALSE(geo::blocks_per_row(geo::kMaxGridX + 1).has_value());
}

TEST_CASE("transpose grids stay in CUDA's limits and cover every row in rounds") {
    struct Case {
        std::int64_t rows, cols;
    };
    for (const Case c : {Case{1, 1}, Case{37, 300}, Case{2'097'120, 3}, Case{2'097'121, 3},
                         Case{3'000'000, 4}, Case{4, 3'000'000}, Case{100'000'000, 2}}) {
        INFO(c.rows << " x " << c.cols);
        const auto g = geo::transpose_grid(c.rows, c.cols);
        REQUIRE(g.has_value());
        CHECK(g->y >= 1);
        CHECK(g->y <= geo::kMaxGridY);
        // Block columns: all of them at once; block rows: y per round, enough rounds.
        CHECK(std::int64_t(g->x) * geo::kTransposeSide >= c.cols);
        const std::int64_t row_blocks = (c.rows + 31) / 32;
        const std::int64_t rounds = (row_blocks + g->y - 1) / g->y;
        CHECK(rounds * g->y * geo::kTransposeSide >= c.rows);
    }
    // 2.1M rows was the old limit (65,535 blocks of 32 rows): now two rounds.
    CHECK(geo::transpose_grid(2'097'121, 3)->y == geo::kMaxGridY);
    CHECK_FALSE(geo::transpose_grid(1, (geo::kMaxGridX + 1) * 32).has_value());
}

TEST_CASE("contiguous rows are copied as one block, strided ones row by row") {
    const std::size_t two_gib = std::size_t(1) << 31;
    // A whole tile of 2.6 GB as one row: one plain copy, whatever the pitches say.
    CHECK(geo::contiguous_rows(two_gib + 4096, two_gib + 4096, two_gib + 4096, 1));
    // Back-to-back rows.
    CHECK(geo::contiguous_rows(64, 64, 64, 1000));
    // A piece of each row (TILE along the last dimension): strided.
    CHECK_FALSE(geo::contiguous_rows(24, 64, 24, 1000));
    CHECK_FALSE(geo::contiguous_rows(64, 24, 24, 1000));
    CHECK(geo::contiguous_rows(64, 24, 24, 0));
}

TEST_CASE("col_sum splits tall tiles into row chunks that cover every row") {
    CHECK(geo::col_sum_chunks(37, 300) == 1);            // few rows: one pass
    CHECK(geo::col_sum_chunks(1'000'000, 70'000) == 1);  // columns enough to fill the GPU
    for (const std::int64_t rows : {65LL, 1000LL, 6144LL, 3'000'000LL, 100'000'000'000LL}) {
        INFO(rows << " rows");
        const std::int64_t chunks = geo::col_sum_chunks(rows, 4);
        REQUIRE(chunks > 1);
        CHECK(chunks <= geo::kMaxGridY);
        const std::int64_t per = geo::chunk_rows(rows, chunks);
        CHECK(per * chunks >= rows);       // every row in some chunk
        CHECK(per * (chunks - 1) < rows);  // no chunk wholly past the end
    }
}
