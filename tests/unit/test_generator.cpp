#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <vector>

#include "core/error.hpp"
#include "core/relation.hpp"
#include "storage/generator.hpp"

using namespace tra;
using storage::GeneratorSpec;

namespace {

GeneratorSpec spec(GeneratorSpec::Kind kind, double lo, double hi, std::uint64_t seed) {
    GeneratorSpec s;
    s.kind = kind;
    s.lo = lo;
    s.hi = hi;
    s.seed = seed;
    return s;
}

// The whole tensor assembled from its tiles, indexed by global row-major position.
std::vector<double> assemble(const GeneratorSpec& s, DType dtype, const Shape& shape,
                             const Shape& bound) {
    std::vector<double> out(static_cast<std::size_t>(shape.product()), std::nan(""));
    Frontier frontier;
    for (std::size_t i = 0; i < shape.size(); ++i) frontier.push_back(shape[i] / bound[i]);
    for (const Key& key : KeySet::box(frontier)) {
        Tile t = storage::generate_tile(s, dtype, shape, bound, key);
        REQUIRE(t.shape() == bound);
        REQUIRE(t.dtype() == dtype);
        Shape local(bound.size());
        std::int64_t flat = 0;
        do {
            Shape global(bound.size());
            for (std::size_t i = 0; i < bound.size(); ++i) global[i] = key[i] * bound[i] + local[i];
            out[static_cast<std::size_t>(row_major_offset(global, shape))] = t.get(flat++);
        } while (next_in_box(local, bound));
    }
    return out;
}

}  // namespace

// Expected values come from the numpy reference, e.g.
//   cd tools/reference && /usr/bin/python3 -c "import tragen
//   print([float(v).hex() for v in tragen.unit_uniform(7, [0, 1, 2, 59])])"
TEST_CASE("generator matches the numpy reference bit for bit") {
    CHECK(storage::unit_uniform(7, 0) == 0x1.ebac5285c1d8cp-2);
    CHECK(storage::unit_uniform(7, 1) == 0x1.019ccdcdf93bfp-1);
    CHECK(storage::unit_uniform(7, 2) == 0x1.9533e9153ec44p-1);
    CHECK(storage::unit_uniform(7, 59) == 0x1.da7af3eb48868p-1);
    CHECK(storage::unit_uniform(0, 0) == 0x1.04136901f5da3p-1);
    // Both products wrap mod 2^64: print(tragen.unit_uniform(2**64-1, [2**64-2])[0].hex())
    CHECK(storage::unit_uniform(~std::uint64_t{0}, ~std::uint64_t{0} - 1) == 0x1.d1c8918904820p-3);

    // a = tragen.generate("uniform", -1, 1, 7, [6, 10]); a[0,0], a[5,9], a[2,3] in hex
    const auto u = spec(GeneratorSpec::Kind::Uniform, -1, 1, 7);
    CHECK(storage::generated_value(u, 0) == -0x1.453ad7a3e2740p-5);
    CHECK(storage::generated_value(u, 59) == 0x1.b4f5e7d6910d0p-1);
    CHECK(storage::generated_value(u, 23) == 0x1.24d07a98635cap-1);
    Tile t = storage::generate_tile(u, DType::F64, Shape{6, 10}, Shape{3, 5}, Key{1, 1});
    CHECK(t.get(14) == 0x1.b4f5e7d6910d0p-1);  // element (5, 9)

    // tragen.generate("integers", -5, 5, 3, [4, 4], "f32").ravel().tolist()
    const std::vector<double> ints = {0, -4, 1, -1, -5, 2, 1, 1, -3, 0, -4, 5, -5, -5, 1, 0};
    CHECK(assemble(spec(GeneratorSpec::Kind::Integers, -5, 5, 3), DType::F32, Shape{4, 4},
                   Shape{2, 2}) == ints);

    // f32 holds the f64 value rounded: tragen.generate("uniform", -1, 1, 123456789012345, [3],
    // "f32"), each as float(x).hex()
    Tile f = storage::generate_tile(spec(GeneratorSpec::Kind::Uniform, -1, 1, 123456789012345),
                                    DType::F32, Shape{3}, Shape{3}, Key{0});
    CHECK(f.data<float>()[0] == 0x1.b6e236p-6f);
    CHECK(f.data<float>()[1] == -0x1.803c1ap-1f);
    CHECK(f.data<float>()[2] == -0x1.de77e6p-1f);
}

TEST_CASE("generated values do not depend on the tiling") {
    const auto u = spec(GeneratorSpec::Kind::Uniform, -2, 3, 11);
    const Shape shape{6, 10};
    for (DType dtype : {DType::F64, DType::F32}) {
        const auto whole = assemble(u, dtype, shape, Shape{6, 10});
        CHECK(assemble(u, dtype, shape, Shape{3, 5}) == whole);
        CHECK(assemble(u, dtype, shape, Shape{2, 2}) == whole);
        CHECK(assemble(u, dtype, shape, Shape{1, 10}) == whole);
        for (std::size_t i = 0; i < whole.size(); ++i) {
            const double v = storage::generated_value(u, i);
            REQUIRE(whole[i] == (dtype == DType::F64 ? v : static_cast<float>(v)));
        }
    }
    // Rank 3 and rank 1 walk the same global index.
    const auto a = spec(GeneratorSpec::Kind::Arange, 0, 1, 0);
    const auto cube = assemble(a, DType::F64, Shape{2, 4, 6}, Shape{1, 2, 3});
    for (std::size_t i = 0; i < cube.size(); ++i) REQUIRE(cube[i] == static_cast<double>(i));
    CHECK(assemble(a, DType::F64, Shape{8}, Shape{4}) ==
          std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("generator is deterministic and seeded") {
    const auto a = spec(GeneratorSpec::Kind::Uniform, 0, 1, 5);
    const auto b = spec(GeneratorSpec::Kind::Uniform, 0, 1, 6);
    const auto ta = assemble(a, DType::F64, Shape{8, 8}, Shape{4, 4});
    CHECK(ta == assemble(a, DType::F64, Shape{8, 8}, Shape{4, 4}));
    CHECK(ta != assemble(b, DType::F64, Shape{8, 8}, Shape{4, 4}));
    CHECK(std::set<double>(ta.begin(), ta.end()).size() == ta.size());
}

TEST_CASE("generator kinds stay in their ranges") {
    const auto u = spec(GeneratorSpec::Kind::Uniform, -1, 1, 42);
    const auto i = spec(GeneratorSpec::Kind::Integers, -5, 5, 42);
    double sum = 0;
    std::set<double> seen;
    const int n = 20000;
    for (int k = 0; k < n; ++k) {
        const double x = storage::generated_value(u, k);
        REQUIRE(x >= -1.0);
        REQUIRE(x < 1.0);
        sum += x;
        const double y = storage::generated_value(i, k);
        REQUIRE(y == std::floor(y));
        REQUIRE(y >= -5.0);
        REQUIRE(y <= 5.0);
        seen.insert(y);
    }
    CHECK(std::abs(sum / n) < 0.03);
    CHECK(seen.size() == 11);

    CHECK(storage::generated_value(spec(GeneratorSpec::Kind::Constant, 2.5, 0, 9), 123) == 2.5);
    CHECK(storage::generated_value(spec(GeneratorSpec::Kind::Arange, 1, 0.5, 9), 4) == 3.0);
}

TEST_CASE("generator scalar tiles, errors and description") {
    const auto u = spec(GeneratorSpec::Kind::Uniform, -1, 1, 7);
    Tile s = storage::generate_tile(u, DType::F64, Shape{}, Shape{}, Key{});
    CHECK(s.elements() == 1);
    CHECK(s.get(0) == storage::generated_value(u, 0));

    CHECK_THROWS_AS(storage::generate_tile(u, DType::F64, Shape{6, 10}, Shape{3, 5}, Key{2, 0}),
                    Error);
    CHECK_THROWS_AS(storage::generate_tile(u, DType::F64, Shape{6, 10}, Shape{3, 5}, Key{0}),
                    Error);

    CHECK(u.str() == "uniform [-1, 1] seed 7");
    CHECK(spec(GeneratorSpec::Kind::Integers, -5, 5, 3).str() == "integers [-5, 5] seed 3");
    CHECK(spec(GeneratorSpec::Kind::Constant, 0.1, 0, 0).str() == "constant 0.1");
    CHECK(spec(GeneratorSpec::Kind::Arange, 0, 0.5, 1).str() == "arange [0, 0.5]");
}

TEST_CASE("a padded tile holds the tensor's values inside and zeros past its shape") {
    // [5, 7] cut into [2, 3] tiles: 3 x 3 tiles, the last row and column reaching past it.
    const auto a = spec(GeneratorSpec::Kind::Arange, 1, 1, 0);  // element i holds i + 1
    const Shape shape{5, 7};
    const Tile corner = storage::generate_tile(a, DType::F64, shape, Shape{2, 3}, Key{2, 2});
    // Rows 4-5, columns 6-8: only (4, 6) is inside, index 4 * 7 + 6.
    CHECK(corner.get(0) == 4 * 7 + 6 + 1);
    for (std::int64_t i = 1; i < 6; ++i) CHECK(corner.get(i) == 0.0);
    const Tile edge = storage::generate_tile(a, DType::F32, shape, Shape{2, 3}, Key{0, 2});
    CHECK(edge.get(0) == 6 + 1);   // (0, 6)
    CHECK(edge.get(1) == 0.0);     // (0, 7) is past the shape
    CHECK(edge.get(3) == 13 + 1);  // (1, 6)
    CHECK_THROWS_AS(storage::generate_tile(a, DType::F64, shape, Shape{2, 3}, Key{3, 0}), Error);
}
