// fill_padding (a padded softmax's -inf, tra/softmax_lowering.hpp) against a naive loop over
// global indices, f32 and f64, and its parameter errors.
#include <limits>

#include "kernel_fixtures.hpp"

using namespace tra;
using namespace tra::kernels;
using namespace tra::kernel_testing;

namespace {

KernelParams fill_params(const std::string& spec, double value) {
    KernelParams p;
    p.spec = spec;
    p.factor = value;
    return p;
}

// Independent reference: each element's global index along `dim` (key x tile size + local) at
// or past `extent` takes `value`.
Tile naive_fill(const Tile& in, const Key& key, std::size_t dim, std::int64_t extent,
                double value) {
    Tile out = in;
    if (in.elements() == 0) return out;
    const Shape& shape = in.shape();
    Shape idx(shape.size());
    std::int64_t flat = 0;
    do {
        if (key[dim] * shape[dim] + idx[dim] >= extent) out.set(flat, value);
        ++flat;
    } while (next_in_box(idx, shape));
    return out;
}

}  // namespace

TEST_CASE("fill_padding fills past the extent along one dimension", "[kernels][padding]") {
    const double inf = std::numeric_limits<double>::infinity();
    struct Case {
        Shape shape;
        Key key;
        std::size_t dim;
        std::int64_t extent;
    };
    const std::vector<Case> cases = {
        {{3, 5}, Key{0, 1}, 1, 8},         // the last of two column tiles: 5..9, past 8 filled
        {{3, 5}, Key{0, 0}, 1, 8},         // the first: nothing past the extent
        {{4, 3}, Key{2, 0}, 0, 9},         // rows 8..11: only row 8 is inside
        {{2, 3, 4}, Key{1, 0, 1}, 2, 6},   // a middle dimension kept, the last cut
        {{2, 3, 4}, Key{0, 3, 0}, 1, 10},  // rows 9..11 of dimension 1: one inside
        {{2, 0, 4}, Key{0, 0, 1}, 2, 6}    // an empty tile
    };
    for (DType d : kDtypes)
        for (const Case& c : cases)
            for (double value : {-inf, 0.0}) {
                INFO(c.shape.str() << " at " << c.key.str() << " dim " << c.dim << " extent "
                                   << c.extent << " value " << value << " " << name_of(d));
                const Tile in = random_tile(d, c.shape, -2, 2, 11);
                const std::string spec = std::to_string(c.dim) + ":" + std::to_string(c.extent);
                Frontier frontier(c.key.size());
                for (std::size_t i = 0; i < frontier.size(); ++i) frontier[i] = c.key[i] + 1;
                const Tile got = run(KernelCall("fill_padding", fill_params(spec, value)), {&in},
                                     TilePosition{c.key, frontier});
                const Tile want = naive_fill(in, c.key, c.dim, c.extent, value);
                for (std::int64_t i = 0; i < want.elements(); ++i) {
                    INFO("element " << i);
                    CHECK(got.get(i) == want.get(i));
                }
            }
}

TEST_CASE("fill_padding refuses parameters it cannot read", "[kernels][padding]") {
    const Tile in = random_tile(DType::F64, {3, 5}, -1, 1, 3);
    const std::vector<Shape> shapes = {in.shape()};
    for (const char* spec : {"", "1", "1:", ":8", "a:8", "1:8x", "-1:8", "1:-8"}) {
        INFO("spec '" << spec << "'");
        CHECK_FALSE(
            KernelCall("fill_padding", fill_params(spec, 0.0)).try_output_shape(shapes).ok());
    }
    KernelParams no_value;
    no_value.spec = "1:8";
    CHECK_FALSE(KernelCall("fill_padding", no_value).try_output_shape(shapes).ok());
    const auto out_of_range = KernelCall("fill_padding", fill_params("2:8", 0.0));
    const Checked<Shape> shape = out_of_range.try_output_shape(shapes);
    REQUIRE_FALSE(shape.ok());
    CHECK_THAT(shape.problem().message(), Catch::Contains("dimension 2 is out of range"));
    CHECK(KernelCall("fill_padding", fill_params("1:8", 0.0)).str() == "fill_padding(1:8, 0)");
}
