#pragma once
// Keeps an HDF5 file open in this process while writers open and close it one after another
// (DatasetWriter::reopen, one per write of a loop's observed output). HDF5 shares one open file
// among a process's openings of it, so each writer's opening then skips the open, the superblock
// read and the file's lock, and its closing skips the flush of the file's metadata; the dataset's
// own data is still flushed when the writer closes it. The file is flushed and closed once, by
// close(). Only while no other process writes the file: this one's caches of it would go stale.
#include <memory>
#include <string>

namespace tra::storage {

class FileHold {
  public:
    // Opens the existing file at `path` for writing. Errors are BadInput naming the file.
    explicit FileHold(const std::string& path);
    // Closes the file if close() was not called; errors are then not reported.
    ~FileHold();
    FileHold(const FileHold&) = delete;
    FileHold& operator=(const FileHold&) = delete;

    // Flushes and closes the file; a failure is an Error (Failed) naming it.
    void close();

  private:
    struct Handle;
    std::unique_ptr<Handle> h_;
};

}  // namespace tra::storage
