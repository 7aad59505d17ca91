// The diagonal kernel (repeated einsum labels within one tile) against a naive loop, f32 and
// f64, and its spec and shape errors.
#include "kernel_fixtures.hpp"

using namespace tra;
using namespace tra::kernels;
using namespace tra::kernel_testing;

namespace {

// Independent reference: walks every element of the input and keeps those whose indices agree
// on each repeated label, placing it at the output index its labels name (a scatter, where the
// kernel gathers).
Tile naive_diagonal(const Tile& in, const std::string& input, const std::string& output) {
    Shape out_shape;
    for (char c : output) out_shape.push_back(in.shape()[input.find(c)]);
    Tile out = filled(in.dtype(), out_shape, std::nan(""));
    const Shape& shape = in.shape();
    Shape idx(shape.size());
    std::int64_t flat = 0;
    do {
        bool on_diagonal = true;
        for (std::size_t d = 0; d < input.size(); ++d)
            on_diagonal = on_diagonal && idx[d] == idx[input.find(input[d])];
        if (on_diagonal) {
            Shape o;
            for (char c : output) o.push_back(idx[input.find(c)]);
            out.set(row_major_offset(o, out_shape), in.get(flat));
        }
        ++flat;
    } while (next_in_box(idx, shape));
    return out;
}

}  // namespace

TEST_CASE("diagonal matches a naive loop", "[kernels][diagonal]") {
    struct Case {
        std::string input, output;
        Shape shape;
    };
    const std::vector<Case> cases = {
        {"ii", "i", {5, 5}},            // numpy.diag
        {"iij", "ij", {3, 3, 4}},       // leading pair
        {"jii", "ji", {4, 3, 3}},       // trailing pair
        {"iji", "ij", {3, 2, 3}},       // split pair
        {"iij", "ji", {3, 3, 4}},       // output reordered
        {"iii", "i", {4, 4, 4}},        // a label three times
        {"aabb", "ab", {2, 2, 3, 3}},   // two repeated labels
        {"abab", "ba", {2, 3, 2, 3}},   // two interleaved pairs, reordered
        {"jbje", "jbe", {3, 2, 3, 4}},  // opt_einsum's operand
        {"ii", "i", {1, 1}},            // one element
    };
    for (DType d : kDtypes) {
        for (const Case& c : cases) {
            INFO(c.input << "->" << c.output << " on " << c.shape.str() << " " << name_of(d));
            const Tile in = random_tile(d, c.shape, -2, 2, 7);
            const Tile got = run("diagonal", {&in}, spec_params(c.input + "->" + c.output));
            require_close(got, naive_diagonal(in, c.input, c.output));
        }
    }
}

TEST_CASE("diagonal: a concrete case", "[kernels][diagonal]") {
    // in[i, i, j] of a [2, 2, 2] tile numbered 0..7: (0,0,j) -> 0, 1; (1,1,j) -> 6, 7.
    const Tile in = from_values(DType::F64, {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
    const Tile got = run("diagonal", {&in}, spec_params("iij->ij"));
    require_close(got, from_values(DType::F64, {2, 2}, {0, 1, 6, 7}));
}

TEST_CASE("diagonal: spec and shape errors", "[kernels][diagonal][errors]") {
    CHECK_THAT(error_of([] { KernelCall("diagonal", spec_params("ii")); }),
               Catch::Contains("expected one '->'"));
    CHECK_THAT(error_of([] { KernelCall("diagonal", spec_params("iij->i")); }),
               Catch::Contains("input label 'j' is missing from the output"));
    CHECK_THAT(error_of([] { KernelCall("diagonal", spec_params("ii->ii")); }),
               Catch::Contains("label 'i' repeats in the output"));
    CHECK_THAT(error_of([] { KernelCall("diagonal", spec_params("ii->ik")); }),
               Catch::Contains("output label 'k' is not an input label"));
    CHECK_THAT(error_of([] { KernelCall("diagonal", spec_params("iI->i")); }),
               Catch::Contains("labels are single lowercase letters"));
    const KernelCall call("diagonal", spec_params("iij->ij"));
    CHECK(call.operand_count() == 1);
    CHECK(call.str() == "diagonal(iij->ij)");
    CHECK(call.output_shape(std::vector<Shape>{Shape{3, 3, 5}}) == Shape{3, 5});
    const auto uneven = call.try_output_shape(std::vector<Shape>{Shape{3, 4, 5}});
    REQUIRE_FALSE(uneven);
    CHECK_THAT(uneven.problem().message(), Catch::Contains("label 'i' has extents 3 and 4"));
    const auto rank = call.try_output_shape(std::vector<Shape>{Shape{3, 3}});
    REQUIRE_FALSE(rank);
    CHECK_THAT(rank.problem().message(), Catch::Contains("names 3 dimensions"));
}

TEST_CASE("diagonal: picking elements commutes with element-wise aggregations",
          "[kernels][diagonal]") {
    const KernelCall diagonal("diagonal", spec_params("ii->i"));
    for (const char* agg : {"add", "max", "min", "mul"}) {
        INFO(agg);
        const KernelCall g(agg);
        CHECK(diagonal.distributes_over(g));
        const Tile a = random_tile(DType::F64, {3, 3}, -2, 2, 1);
        const Tile b = random_tile(DType::F64, {3, 3}, -2, 2, 2);
        const Tile ab = run(g, {&a, &b});
        const Tile da = run(diagonal, {&a}), db = run(diagonal, {&b});
        require_close(run(diagonal, {&ab}), run(g, {&da, &db}));
    }
}
