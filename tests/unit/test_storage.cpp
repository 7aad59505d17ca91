#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/relation.hpp"
#include "storage/atomic_output.hpp"
#include "storage/layout.hpp"
#include "storage/padded_blocks.hpp"
#include "storage/tensor_file.hpp"
#include "storage_fixtures.hpp"
#include "temp_dir.hpp"

using namespace tra;
using storage::DatasetReader;
using storage::DatasetWriter;
using storage::RelationLayout;
using tra::testing::bad_input_message;
namespace fs = std::filesystem;

namespace {

struct TempDir : testing::TempDir {
    TempDir() : testing::TempDir("storage") {}
};

// Element (global index) of the test tensors: its own row-major position, exact in f32 too.
double value_at(const Shape& global, const Shape& shape) {
    return static_cast<double>(row_major_offset(global, shape));
}

Tile block_of(DType dtype, const Shape& shape, const Shape& origin, const Shape& extent) {
    Tile t(dtype, extent);
    Shape local(extent.size());
    std::int64_t flat = 0;
    do {
        Shape global(extent.size());
        for (std::size_t i = 0; i < extent.size(); ++i) global[i] = origin[i] + local[i];
        t.set(flat++, value_at(global, shape));
    } while (next_in_box(local, extent));
    return t;
}

bool same(const Tile& a, const Tile& b) {
    if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
    for (std::int64_t i = 0; i < a.elements(); ++i)
        if (a.get(i) != b.get(i)) return false;
    return true;
}

// A 2064-byte HDF5 file holding one int32 dataset /N = [0, 1, 2, 3], stored sparsely (offset,
// hex bytes; the rest is zero) because this test cannot see HDF5's headers. Made with
//   /usr/bin/python3 -c "import h5py, numpy as np; f = h5py.File('int.h5', 'w', libver='latest');
//   f.create_dataset('N', data=np.arange(4, dtype=np.int32)); f.close()"
void write_int_dataset_file(const std::string& path) {
    const std::pair<std::size_t, const char*> runs[] = {
        {0, "894844460d0a1a0a030808"},
        {20,
         "ffffffffffffffff10080000000000003000000000000000e35e9c764f48445202204c31026b4c31026b"
         "4c31026b4c31026b78021200000000ffffffffffffffffffffffffffffffff0a0200010000060c0000"
         "0100014ec3"},
        {116, "48"},
        {191,
         "b546d26f4f48445202010001011400000201010104000000000000000400000000000000030c00011008"
         "0000040000000000200005020001030a081200000401000800000000000010"},
        {272, "b8"},
        {459, "1ec787f6"},
        {2052, "010000000200000003"},
    };
    std::string bytes(2064, '\0');
    for (const auto& [offset, hex] : runs)
        for (std::size_t i = 0; hex[2 * i]; ++i)
            bytes[offset + i] =
                static_cast<char>(std::stoi(std::string(hex + 2 * i, 2), nullptr, 16));
    std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

TEST_CASE("tensor layout round trip, tile by tile in any order") {
    TempDir dir;
    for (DType dtype : {DType::F32, DType::F64}) {
        const std::string file = dir / ("T-" + name_of(dtype) + ".h5");
        const RelationType type{2, Shape{3, 2}, dtype};
        const Frontier frontier{5, 7};
        const auto layout = RelationLayout::of(type, frontier);
        REQUIRE(layout.tensor);
        REQUIRE(layout.dataset_shape == Shape{15, 14});
        REQUIRE(layout.chunk == Shape{3, 2});
        CHECK(layout.origin(Key{4, 6}) == Shape{12, 12});

        const KeySet box = KeySet::box(frontier);
        std::vector<Key> keys(box.begin(), box.end());
        std::shuffle(keys.begin(), keys.end(), std::mt19937(17));
        DatasetWriter writer(file, "/T", dtype, layout.dataset_shape, layout.chunk);
        for (const Key& k : keys)
            writer.write_block(layout.origin(k),
                               block_of(dtype, layout.dataset_shape, layout.origin(k), type.bound));
        writer.close();

        DatasetReader reader(file, "T");  // the leading slash is optional
        CHECK(reader.info().dtype == dtype);
        CHECK(reader.info().shape == Shape{15, 14});
        CHECK(reader.info().chunk == Shape{3, 2});
        for (const Key& k : keys) {
            const Shape o = layout.origin(k);
            REQUIRE(same(reader.read_tile(o, type.bound),
                         block_of(dtype, layout.dataset_shape, o, type.bound)));
        }
        // Blocks that cut across tiles, the whole tensor, one element.
        for (const auto& [o, e] : std::vector<std::pair<Shape, Shape>>{
                 {{1, 3}, {4, 5}}, {{0, 0}, {15, 14}}, {{14, 13}, {1, 1}}, {{2, 0}, {13, 1}}})
            CHECK(same(reader.read_block(o, e), block_of(dtype, layout.dataset_shape, o, e)));
        CHECK_THROWS_AS(reader.read_block(Shape{14, 0}, Shape{2, 1}), Error);
        CHECK_THROWS_AS(reader.read_block(Shape{0}, Shape{1}), Error);
    }
}

TEST_CASE("relation layout: frontier dims then tile dims") {
    TempDir dir;
    const RelationType type{3, Shape{2, 3}, DType::F64};
    const Frontier frontier{2, 1, 3};
    const auto layout = RelationLayout::of(type, frontier);
    CHECK_FALSE(layout.tensor);
    CHECK(layout.dataset_shape == Shape{2, 1, 3, 2, 3});
    CHECK(layout.chunk == Shape{1, 1, 1, 2, 3});
    CHECK(layout.origin(Key{1, 0, 2}) == Shape{1, 0, 2, 0, 0});
    CHECK_THROWS_AS(layout.origin(Key{1, 0}), Error);

    const std::string file = dir / "R.h5";
    DatasetWriter writer(file, "/R", type.dtype, layout.dataset_shape, layout.chunk);
    for (const Key& k : KeySet::box(frontier)) {
        Tile t(type.dtype, type.bound);
        for (std::int64_t i = 0; i < t.elements(); ++i)
            t.set(i, 100.0 * static_cast<double>(row_major_offset(k, frontier)) + i);
        writer.write_block(layout.origin(k), t);
    }
    writer.close();

    DatasetReader reader(file, "/R");
    CHECK(reader.info().shape == layout.dataset_shape);
    CHECK(reader.info().chunk == layout.chunk);
    for (const Key& k : KeySet::box(frontier)) {
        Tile t = reader.read_tile(layout.origin(k), layout.bound);
        REQUIRE(t.shape() == type.bound);
        for (std::int64_t i = 0; i < t.elements(); ++i)
            REQUIRE(t.get(i) == 100.0 * static_cast<double>(row_major_offset(k, frontier)) + i);
    }
    // The same bytes read as a full-rank block of the dataset.
    CHECK(reader.read_block(Shape{1, 0, 2, 0, 0}, Shape{1, 1, 1, 2, 3}).get(5) == 505.0);

    // Key arity 0: the single tile is stored as a plain array.
    const auto single = RelationLayout::of(RelationType{0, Shape{4, 5}, DType::F32}, Frontier{});
    CHECK_FALSE(single.tensor);
    CHECK(single.dataset_shape == Shape{4, 5});
    CHECK(single.chunk == Shape{4, 5});
    CHECK(single.origin(Key{}) == Shape{0, 0});
    CHECK_THROWS_AS(RelationLayout::of(type, Frontier{2, 1}), Error);
}

TEST_CASE("scalar datasets and chunk clamping") {
    TempDir dir;
    const std::string file = dir / "S.h5";
    const auto layout = RelationLayout::of(RelationType{0, Shape{}, DType::F64}, Frontier{});
    CHECK(layout.tensor);
    CHECK(layout.dataset_shape == Shape{});
    {
        DatasetWriter w(file, "/s", DType::F64, layout.dataset_shape, layout.chunk);
        Tile t(DType::F64, Shape{});
        t.set(0, 2.75);
        w.write_block(layout.origin(Key{}), t);
        w.close();
    }
    {
        // A second dataset in the same file; the chunk is larger than the shape.
        DatasetWriter w(file, "/small", DType::F32, Shape{5, 3}, Shape{8, 8});
        w.write_block(Shape{0, 0}, block_of(DType::F32, Shape{5, 3}, Shape{0, 0}, Shape{5, 3}));
        w.close();
    }
    DatasetReader s(file, "/s");
    CHECK(s.info().shape == Shape{});
    CHECK(s.info().chunk.empty());
    Tile t = s.read_block(Shape{}, Shape{});
    CHECK(t.elements() == 1);
    CHECK(t.get(0) == 2.75);
    CHECK(DatasetReader(file, "/small").info().chunk == Shape{5, 3});
    CHECK(storage::list_datasets(file) == std::vector<std::string>{"/s", "/small"});
}

TEST_CASE("nested datasets are listed recursively and sorted") {
    TempDir dir;
    const std::string file = dir / "N.h5";
    for (const char* name : {"/grp/sub/D", "/B", "grp/C", "/A"}) {
        DatasetWriter w(file, name, DType::F64, Shape{2}, Shape{2});
        w.close();
    }
    CHECK(storage::list_datasets(file) ==
          std::vector<std::string>{"/A", "/B", "/grp/C", "/grp/sub/D"});
    CHECK(DatasetReader(file, "/grp/sub/D").info().shape == Shape{2});
    CHECK(bad_input_message([&] { DatasetReader(file, "/grp/X"); }) ==
          "no dataset '/grp/X' in '" + file + "' (it has: /A, /B, /grp/C, /grp/sub/D)");
    CHECK(bad_input_message([&] { DatasetReader(file, "/grp"); }) ==
          "'/grp' in '" + file + "' is not a dataset");
}

TEST_CASE("storage errors name the file and the dataset") {
    TempDir dir;
    const std::string missing = dir / "missing.h5";
    CHECK(bad_input_message([&] { DatasetReader(missing, "/A"); }) ==
          "cannot open HDF5 file '" + missing + "': no such file");
    CHECK_THROWS_AS(storage::list_datasets(missing), Error);

    const std::string text = dir / "text.h5";
    std::ofstream(text) << "not hdf5\n";
    CHECK(bad_input_message([&] { DatasetReader(text, "/A"); }) ==
          "cannot open HDF5 file '" + text + "': not an HDF5 file");
    CHECK(bad_input_message([&] { DatasetWriter(text, "/A", DType::F64, Shape{1}, Shape{1}); }) ==
          "cannot open HDF5 file '" + text + "': not an HDF5 file");

    const std::string file = dir / "x.h5";
    for (const char* name : {"/A", "/C"}) DatasetWriter(file, name, DType::F64, Shape{3}, Shape{3});
    CHECK(bad_input_message([&] { DatasetReader(file, "/B"); }) ==
          "no dataset '/B' in '" + file + "' (it has: /A, /C)");
    CHECK(bad_input_message([&] { DatasetWriter(file, "/A", DType::F64, Shape{3}, Shape{3}); }) ==
          "dataset '/A' already exists in '" + file + "'");

    DatasetWriter w(file, "/D", DType::F64, Shape{4, 4}, Shape{2, 2});
    CHECK_THROWS_AS(w.write_block(Shape{0, 0}, Tile(DType::F32, Shape{2, 2})), Error);
    CHECK_THROWS_AS(w.write_block(Shape{3, 0}, Tile(DType::F64, Shape{2, 2})), Error);
    CHECK_THROWS_AS(w.write_block(Shape{0, 0}, Tile(DType::F64, Shape{1, 2, 2})), Error);
    w.close();

    const std::string ints = dir / "int.h5";
    write_int_dataset_file(ints);
    CHECK(storage::list_datasets(ints) == std::vector<std::string>{"/N"});
    CHECK(bad_input_message([&] { DatasetReader(ints, "/N"); }) ==
          "dataset '/N' in '" + ints + "' has element type int32, tra reads f32 or f64");
}

TEST_CASE("atomic output appears only on commit") {
    TempDir dir;
    const std::string final_path = dir / "out/sub/C.h5";  // missing folders are created
    {
        storage::AtomicOutput out(final_path, false);
        CHECK(out.final_path() == final_path);
        CHECK(out.temp_path().rfind(final_path + ".tmp", 0) == 0);
        CHECK(fs::is_directory(dir / "out/sub"));
        DatasetWriter w(out.temp_path(), "/C", DType::F64, Shape{2}, Shape{2});
        w.write_block(Shape{0}, block_of(DType::F64, Shape{2}, Shape{0}, Shape{2}));
        w.close();
        CHECK(fs::exists(out.temp_path()));
        CHECK_FALSE(fs::exists(final_path));
        out.commit();
        CHECK_FALSE(fs::exists(out.temp_path()));
    }
    CHECK(DatasetReader(final_path, "/C").read_block(Shape{1}, Shape{1}).get(0) == 1.0);

    CHECK(bad_input_message([&] { storage::AtomicOutput(final_path, false); }) ==
          "output '" + final_path + "' exists; pass --force to replace it");

    std::string temp;
    {
        storage::AtomicOutput out(final_path, true);
        temp = out.temp_path();
        DatasetWriter(temp, "/Z", DType::F32, Shape{1}, Shape{1}).close();
        CHECK(fs::exists(temp));
        storage::AtomicOutput moved(std::move(out));  // the moved-to object owns the temp file
        CHECK(moved.temp_path() == temp);
    }  // never committed: the temp file goes, the old output stays
    CHECK_FALSE(fs::exists(temp));
    CHECK(storage::list_datasets(final_path) == std::vector<std::string>{"/C"});

    {
        storage::AtomicOutput out(final_path, true);
        DatasetWriter(out.temp_path(), "/Z", DType::F32, Shape{1}, Shape{1}).close();
        out.commit();
    }
    CHECK(storage::list_datasets(final_path) == std::vector<std::string>{"/Z"});

    // A folder that cannot be made: its parent is a plain file.
    std::ofstream(dir / "plain") << "x";
    CHECK(bad_input_message([&] {
              storage::AtomicOutput(dir / "plain/C.h5", false);
          }).rfind("cannot create folder '" + (dir / "plain") + "' for output", 0) == 0);
    CHECK(bad_input_message([&] { storage::AtomicOutput(dir / "out", true); }) ==
          "output '" + (dir / "out") + "' is a folder");
}

TEST_CASE("padded tiles: read with zeros past the dataset, written cropped") {
    TempDir dir;
    const std::string path = dir.file("padded.h5");
    // A [5, 7] tensor cut into [2, 3] tiles is 3 x 3 tiles of a padded [6, 9].
    const Shape shape{5, 7}, bound{2, 3};
    const RelationType type{2, bound, DType::F64};
    const RelationLayout layout = RelationLayout::of(type, Frontier{3, 3}, shape);
    CHECK(layout.dataset_shape == shape);
    CHECK_THROWS_AS(RelationLayout::of(type, Frontier{3, 3}, Shape{4, 7}), Error);  // a tile short
    {
        DatasetWriter w(path, "/T", DType::F64, layout.dataset_shape, layout.chunk);
        Tile scratch;
        for (std::int64_t i = 0; i < 3; ++i)
            for (std::int64_t j = 0; j < 3; ++j) {
                const Key k{i, j};
                // Padded tiles as the runtime holds them: values past the shape are garbage.
                Tile t = block_of(DType::F64, shape, layout.origin(k), bound);
                for (std::int64_t e = 0; e < t.elements(); ++e) {
                    const Shape at{i * 2 + e / 3, j * 3 + e % 3};
                    if (at[0] >= 5 || at[1] >= 7) t.set(e, -1.0);
                }
                const Tile& written = layout.block(k, t, scratch);
                CHECK(written.shape() == Shape{i == 2 ? 1 : 2, j == 2 ? 1 : 3});
                w.write_block(layout.origin(k), written);
            }
        w.close();
    }
    const DatasetReader r(path, "/T");
    CHECK(r.info().shape == shape);
    CHECK(same(r.read_block(Shape{0, 0}, shape), block_of(DType::F64, shape, Shape{0, 0}, shape)));
    // Read back as tiles: the inside as written, zeros in the padding.
    const Tile corner = storage::read_padded_block(r, layout.origin(Key{2, 2}), bound);
    CHECK(corner.shape() == bound);
    CHECK(corner.get(0) == value_at(Shape{4, 6}, shape));
    for (std::int64_t e = 1; e < 6; ++e) CHECK(corner.get(e) == 0.0);
    CHECK(same(storage::read_padded_block(r, Shape{0, 0}, bound),
               block_of(DType::F64, shape, Shape{0, 0}, bound)));
}

TEST_CASE("copy_corner copies the leading block two tiles share") {
    Tile a(DType::F32, Shape{2, 3}), b(DType::F32, Shape{3, 2});
    for (std::int64_t i = 0; i < 6; ++i) a.set(i, static_cast<double>(i + 1));
    storage::copy_corner(a, b);
    CHECK(std::vector<double>{b.get(0), b.get(1), b.get(2), b.get(3), b.get(4), b.get(5)} ==
          std::vector<double>{1, 2, 4, 5, 0, 0});
    Tile c(DType::F64, Shape{2, 2});
    CHECK_THROWS_AS(storage::copy_corner(a, c), Error);  // another dtype
}
