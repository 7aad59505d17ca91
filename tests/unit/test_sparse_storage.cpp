// Block-sparse storage (docs/runtime.md, "Sparse inputs and outputs"): which tiles of a chunked
// dataset are allocated (storage/chunk_presence.hpp), and what unwritten blocks read as under each
// DatasetWriter allocation.
#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "storage/checkpoint_file.hpp"
#include "storage/chunk_presence.hpp"
#include "storage/tensor_file.hpp"
#include "storage_fixtures.hpp"
#include "temp_dir.hpp"

using namespace tra;
using storage::allocated_tiles;
using storage::DatasetReader;
using storage::DatasetWriter;
using tra::testing::bad_input_message;
using Allocation = DatasetWriter::Allocation;

namespace {

struct TempDir : testing::TempDir {
    TempDir() : testing::TempDir("sparse-storage") {}
};

// A tile of `extent` whose every element is `value`.
Tile filled(const Shape& extent, double value) {
    Tile t(DType::F64, extent);
    for (std::int64_t i = 0; i < t.elements(); ++i) t.set(i, value);
    return t;
}

// Creates dataset /A of `shape` chunked by `chunk` and writes the chunks at the chunk-grid
// positions `written` (each filled with 1 + its position in the list).
void write_chunks(const std::string& file, const Shape& shape, const Shape& chunk,
                  const std::vector<Key>& written,
                  Allocation allocation = Allocation::Incremental) {
    DatasetWriter w(file, "/A", DType::F64, shape, chunk, allocation);
    for (std::size_t i = 0; i < written.size(); ++i) {
        Shape origin;
        for (std::size_t d = 0; d < shape.size(); ++d) origin.push_back(written[i][d] * chunk[d]);
        w.write_block(origin, filled(chunk, 1.0 + static_cast<double>(i)));
    }
    w.close();
}

bool all_equal(const Tile& t, double value) {
    for (std::int64_t i = 0; i < t.elements(); ++i)
        if (t.get(i) != value) return false;
    return true;
}

}  // namespace

TEST_CASE("allocated tiles: chunks equal to, smaller than, larger than and across tiles") {
    TempDir dir;
    const std::string file = dir / "A.h5";
    // A 4 x 4 grid of 2 x 3 chunks, three written (out of order).
    write_chunks(file, Shape{8, 12}, Shape{2, 3}, {Key{3, 3}, Key{0, 0}, Key{1, 2}});
    CHECK(DatasetReader(file, "/A").info().chunk == Shape{2, 3});

    // tile = chunk
    CHECK(allocated_tiles(file, "/A", Shape{2, 3}) == std::vector<Key>{{0, 0}, {1, 2}, {3, 3}});
    // tile = 2 chunks (rows)
    CHECK(allocated_tiles(file, "A", Shape{4, 3}) == std::vector<Key>{{0, 0}, {0, 2}, {1, 3}});
    // chunk = 2 tiles (rows)
    CHECK(allocated_tiles(file, "/A", Shape{1, 3}) ==
          std::vector<Key>{{0, 0}, {1, 0}, {2, 2}, {3, 2}, {6, 3}, {7, 3}});
    // neither divides the other along columns: a chunk of 3 columns overlaps 2 tiles of 2
    CHECK(allocated_tiles(file, "/A", Shape{4, 2}) ==
          std::vector<Key>{{0, 0}, {0, 1}, {0, 3}, {0, 4}, {1, 4}, {1, 5}});
    // one tile holding the whole dataset
    CHECK(allocated_tiles(file, "/A", Shape{8, 12}) == std::vector<Key>{{0, 0}});
}

TEST_CASE("allocated tiles: many chunks, every chunk, none") {
    TempDir dir;
    // Half of a 6 x 6 grid: more allocated chunks than the by-index walk is cheap for, so each
    // chunk of the grid is looked up (chunk_presence.cpp).
    std::vector<Key> half;
    for (std::int64_t r = 0; r < 6; ++r)
        for (std::int64_t c = (r % 2); c < 6; c += 2) half.push_back(Key{r, c});
    const std::string many = dir / "many.h5";
    write_chunks(many, Shape{12, 6}, Shape{2, 1}, half);
    CHECK(allocated_tiles(many, "/A", Shape{2, 1}) == half);
    std::vector<Key> rows;  // tiles of 4 x 6: chunk rows 0-1 and 2-3 and 4-5
    for (std::int64_t r = 0; r < 3; ++r) rows.push_back(Key{r, 0});
    CHECK(allocated_tiles(many, "/A", Shape{4, 6}) == rows);

    const std::string early = dir / "early.h5";
    write_chunks(early, Shape{6, 4}, Shape{2, 2}, {Key{1, 1}}, Allocation::Reproducible);
    std::vector<Key> every;
    for (std::int64_t r = 0; r < 3; ++r)
        for (std::int64_t c = 0; c < 4; ++c) every.push_back(Key{r, c});
    CHECK(allocated_tiles(early, "/A", Shape{2, 1}) == every);

    const std::string none = dir / "none.h5";
    write_chunks(none, Shape{6, 4}, Shape{2, 2}, {});
    CHECK(allocated_tiles(none, "/A", Shape{2, 2}).empty());

    // Rank 1 and rank 3.
    const std::string line = dir / "line.h5";
    write_chunks(line, Shape{10}, Shape{2}, {Key{4}, Key{1}});
    CHECK(allocated_tiles(line, "/A", Shape{5}) == std::vector<Key>{{0}, {1}});
    const std::string cube = dir / "cube.h5";
    write_chunks(cube, Shape{4, 4, 4}, Shape{2, 2, 2}, {Key{1, 0, 1}});
    CHECK(allocated_tiles(cube, "/A", Shape{2, 2, 2}) == std::vector<Key>{{1, 0, 1}});
}

TEST_CASE("allocated tiles refuses what has no chunks to be absent") {
    TempDir dir;
    const std::string file = dir / "x.h5";
    write_chunks(file, Shape{8, 12}, Shape{2, 3}, {Key{0, 0}});
    // Not chunked: a scalar, and an empty array (tra writes both contiguous).
    DatasetWriter(file, "/s", DType::F64, Shape{}, Shape{}).close();
    DatasetWriter(file, "/e", DType::F64, Shape{0, 4}, Shape{1, 4}).close();
    for (const char* name : {"/s", "/e"})
        CHECK(bad_input_message([&] {
                  allocated_tiles(file, name, Shape{1, 4});
              }) == "dataset '" + std::string(name) + "' in '" + file +
                        "' is not chunked: `sparse: true` needs a chunked dataset, whose unwritten "
                        "chunks are absent");
    CHECK(bad_input_message([&] {
              allocated_tiles(file, "/A", Shape{3, 3});
          }) == "tile [3, 3] does not divide the shape [8, 12] of dataset '/A' in '" + file + "'");
    CHECK(bad_input_message([&] { allocated_tiles(file, "/A", Shape{2}); }) ==
          "tile [2] does not divide the shape [8, 12] of dataset '/A' in '" + file + "'");
    CHECK(bad_input_message([&] {
              allocated_tiles(file, "/A", Shape{0, 3});
          }) == "tile [0, 3] does not divide the shape [8, 12] of dataset '/A' in '" + file + "'");
    CHECK(bad_input_message([&] {
              allocated_tiles(file, "/B", Shape{2, 3});
          }) == "no dataset '/B' in '" + file + "' (it has: /A, /e, /s)");
    const std::string missing = dir / "missing.h5";
    CHECK(bad_input_message([&] {
              allocated_tiles(missing, "/A", Shape{2, 3});
          }) == "cannot open HDF5 file '" + missing + "': no such file");
}

TEST_CASE("unwritten blocks read as zeros under every allocation") {
    TempDir dir;
    const Shape shape{6, 4}, chunk{2, 2};
    for (Allocation a : {Allocation::Incremental, Allocation::Reproducible,
                         Allocation::ReproducibleZeros, Allocation::Sparse}) {
        const std::string file = dir / ("z" + std::to_string(static_cast<int>(a)) + ".h5");
        write_chunks(file, shape, chunk, {Key{0, 1}, Key{2, 0}}, a);
        DatasetReader r(file, "/A");
        CHECK(r.info().chunk == chunk);
        CHECK(all_equal(r.read_tile(Shape{0, 2}, chunk), 1.0));
        CHECK(all_equal(r.read_tile(Shape{4, 0}, chunk), 2.0));
        for (const Shape& unwritten : {Shape{0, 0}, Shape{2, 0}, Shape{2, 2}, Shape{4, 2}})
            CHECK(all_equal(r.read_tile(unwritten, chunk), 0.0));
        // Sparse keeps the unwritten chunks out of the file; the Reproducible ones place them all.
        const auto present = allocated_tiles(file, "/A", chunk);
        if (a == Allocation::Sparse || a == Allocation::Incremental)
            CHECK(present == std::vector<Key>{{0, 1}, {2, 0}});
        else
            CHECK(present.size() == 6);
    }
}

TEST_CASE("a sparse observation restored from a checkpoint stays sparse") {
    TempDir dir;
    const Shape shape{6, 4}, chunk{2, 2};
    const std::vector<Key> present{Key{0, 1}, Key{2, 0}};
    const std::string from = dir / "checkpoint.h5", to = dir / "out.h5";
    write_chunks(from, shape, chunk, present, Allocation::Sparse);
    // The run's output as create_datasets makes it: the same chunks, holding zeros.
    {
        DatasetWriter w(to, "/A", DType::F64, shape, chunk, Allocation::Sparse);
        for (const Key& k : present) w.write_block(Shape{k[0] * 2, k[1] * 2}, filled(chunk, 0));
        w.close();
    }
    storage::copy_dataset_values(from, "/A", to, "/A");
    CHECK(allocated_tiles(to, "/A", chunk) == present);
    const DatasetReader r(to, "/A");
    CHECK(all_equal(r.read_tile(Shape{0, 2}, chunk), 1.0));
    CHECK(all_equal(r.read_tile(Shape{4, 0}, chunk), 2.0));
    CHECK(all_equal(r.read_tile(Shape{2, 2}, chunk), 0.0));

    // A dense one is copied whole.
    const std::string dense = dir / "dense.h5", dense_to = dir / "dense-out.h5";
    write_chunks(dense, shape, chunk, {Key{1, 1}}, Allocation::Reproducible);
    DatasetWriter(dense_to, "/A", DType::F64, shape, chunk, Allocation::Reproducible).close();
    storage::copy_dataset_values(dense, "/A", dense_to, "/A");
    CHECK(all_equal(DatasetReader(dense_to, "/A").read_tile(Shape{2, 2}, chunk), 1.0));
    CHECK(allocated_tiles(dense_to, "/A", chunk).size() == 6);
}
