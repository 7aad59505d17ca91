#pragma once
// A loop's checkpoint file (docs/runtime.md, "Checkpoint and restart"): DIR/checkpoint.h5, one
// HDF5 file replaced atomically (AtomicOutput), so a reader finds a complete checkpoint or the
// previous one. It holds
//   /carry/INPUT      each carried input's value for the iteration after `iteration`
//   /observed/I       program output I (Program::outputs order) where it is an observation
//                     (Output::iteration) made up to `iteration`, so a resumed run writes it too
// and a stamp on the root group: attributes tra_checkpoint_iteration (int64, iterations done),
// tra_checkpoint_sites (int64) and tra_checkpoint_plan (string, the plan's name): a resumed run
// must be the same plan on as many ranks, or its outputs would not be bit-identical.
#include <cstdint>
#include <string>

namespace tra::storage {

struct CheckpointStamp {
    std::int64_t iteration = 0;
    std::int64_t sites = 0;
    std::string plan;
};

// The checkpoint file in folder `dir`.
std::string checkpoint_path(const std::string& dir);
// The dataset names of a carried input and of an observed output.
std::string carry_dataset(const std::string& input);
std::string observed_dataset(std::size_t output);

// Writes the stamp into the (closed) HDF5 file at `path`. Throws Error (Failed) on failure.
void stamp_checkpoint(const std::string& path, const CheckpointStamp& stamp);
// The stamp of the checkpoint at `path`; Error (BadInput) naming the file when it is not one.
CheckpointStamp read_checkpoint_stamp(const std::string& path);

// Copies the values of dataset `from_dataset` of file `from` into the existing dataset
// `to_dataset` of file `to` (same shape and dtype), whole: for observations, which are small
// next to the tiles of a run; a sparse one (some chunks unallocated) chunk by chunk, its
// allocated chunks only, so the copy stays sparse. Throws Error (BadInput) naming the files on
// a mismatch.
void copy_dataset_values(const std::string& from, const std::string& from_dataset,
                         const std::string& to, const std::string& to_dataset);

// Copies dataset `from_dataset` of file `from` into the existing file `to` as the new dataset
// `to_dataset` (its groups created), layout and values as they are (H5Ocopy).
void copy_dataset(const std::string& from, const std::string& from_dataset, const std::string& to,
                  const std::string& to_dataset);

}  // namespace tra::storage
