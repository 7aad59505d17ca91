#pragma once
// Internal to lib/storage (the only place that sees HDF5): an owning hid_t, so every identifier
// is closed on every path, exceptions included.
#include <hdf5.h>

#include <utility>

namespace tra::storage::detail {

class Hid {
  public:
    using Closer = herr_t (*)(hid_t);

    Hid() = default;
    Hid(hid_t id, Closer close) : id_(id), close_(close) {}
    ~Hid() { reset(); }
    Hid(const Hid&) = delete;
    Hid& operator=(const Hid&) = delete;
    Hid(Hid&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
    Hid& operator=(Hid&& o) noexcept {
        if (this != &o) {
            reset();
            id_ = std::exchange(o.id_, H5I_INVALID_HID);
            close_ = o.close_;
        }
        return *this;
    }

    hid_t get() const { return id_; }
    bool valid() const { return id_ >= 0; }
    explicit operator bool() const { return valid(); }

    // Closes now and reports whether HDF5 succeeded (closing a written file flushes it).
    bool close() {
        if (!valid()) return true;
        const herr_t status = close_(std::exchange(id_, H5I_INVALID_HID));
        return status >= 0;
    }
    void reset() { close(); }

  private:
    hid_t id_ = H5I_INVALID_HID;
    Closer close_ = nullptr;
};

inline Hid file_id(hid_t id) {
    return {id, H5Fclose};
}
inline Hid dataset_id(hid_t id) {
    return {id, H5Dclose};
}
inline Hid space_id(hid_t id) {
    return {id, H5Sclose};
}
inline Hid type_id(hid_t id) {
    return {id, H5Tclose};
}
inline Hid plist_id(hid_t id) {
    return {id, H5Pclose};
}

// HDF5 prints its whole error stack to stderr by default; tra reports its own one-line message.
// Called on every entry rather than once because the setting is per thread in thread-safe builds.
inline void silence_hdf5_errors() {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

}  // namespace tra::storage::detail
