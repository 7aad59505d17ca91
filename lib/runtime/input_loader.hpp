#pragma once
// Makes the tiles of a program's input: read from its HDF5 dataset (opened once) or generated,
// tile by tile, so a rank can make exactly the tiles it holds.
#include <cstdint>
#include <memory>
#include <optional>

#include "core/relation.hpp"
#include "storage/tensor_file.hpp"
#include "tra/program.hpp"

namespace tra::runtime {

class InputTiles {
  public:
    // Opens the input's dataset (if it has one) and checks it still matches the workflow. A
    // sliced input (InputSource::slice) reads loop iteration `iteration`'s slice.
    explicit InputTiles(const Node& input, std::int64_t iteration = 1);

    Tile tile(const Key& key) const;

  private:
    const Node& input_;
    std::optional<storage::DatasetReader> reader_;
    std::int64_t offset_ = 0;  // the slice's key offset along its dimension
};

}  // namespace tra::runtime
