#include "storage/kept_objects.hpp"

#include <set>

#include "core/error.hpp"
#include "storage/hdf5_handle.hpp"
#include "storage/hdf5_names.hpp"
#include "storage/hdf5_open.hpp"

namespace tra::storage {

using detail::absolute_name;
using detail::Hid;
using detail::in_quotes;

namespace {

Hid group_id(hid_t id) {
    return {id, H5Gclose};
}
Hid attribute_id(hid_t id) {
    return {id, H5Aclose};
}

struct Copy {
    std::string from, to;
    std::set<std::string> replaced;

    [[noreturn]] void fail(const std::string& what) const {
        throw Error("cannot keep " + what + " of " + in_quotes(from) + " in the new " +
                    in_quotes(to));
    }

    // True when a replaced dataset lies below `name`: then `name` must stay a group.
    bool above_replaced(const std::string& name) const {
        const auto it = replaced.lower_bound(name + "/");
        return it != replaced.end() && it->rfind(name + "/", 0) == 0;
    }

    // Attributes of an object are copied value by value, in the file's own type (a variable
    // length string is read as pointers and written back from them, then reclaimed).
    void copy_attributes(hid_t src, hid_t dst, const std::string& name) const {
        H5O_info_t info;
        if (H5Oget_info2(src, &info, H5O_INFO_NUM_ATTRS) < 0) fail("the attributes of " + name);
        for (hsize_t i = 0; i < info.num_attrs; ++i) {
            Hid a = attribute_id(
                H5Aopen_by_idx(src, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT, H5P_DEFAULT));
            if (!a) fail("an attribute of " + name);
            char attr_name[1024] = {};
            H5Aget_name(a.get(), sizeof attr_name, attr_name);
            const std::string what = "attribute " + in_quotes(attr_name) + " of " + name;
            Hid type = detail::type_id(H5Aget_type(a.get()));
            Hid space = detail::space_id(H5Aget_space(a.get()));
            const hssize_t n = H5Sget_simple_extent_npoints(space.get());
            const std::size_t size = H5Tget_size(type.get());
            if (!type || !space || n < 0 || size == 0) fail(what);
            std::vector<unsigned char> buf(static_cast<std::size_t>(n) * size);
            if (H5Aread(a.get(), type.get(), buf.data()) < 0) fail(what);
            Hid b = attribute_id(
                H5Acreate2(dst, attr_name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
            const bool ok = b && H5Awrite(b.get(), type.get(), buf.data()) >= 0;
            if (H5Tdetect_class(type.get(), H5T_VLEN) > 0 || H5Tis_variable_str(type.get()) > 0)
                H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, buf.data());
            if (!ok) fail(what);
        }
    }

    void copy_link(hid_t src, hid_t dst, const std::string& parent, const char* link) const {
        const std::string name = (parent == "/" ? "" : parent) + "/" + link;
        if (replaced.count(name)) return;  // the workflow writes it anew
        H5L_info_t info;
        if (H5Lget_info(src, link, &info, H5P_DEFAULT) < 0) fail(in_quotes(name));
        const bool group = info.type == H5L_TYPE_HARD && [&] {
            H5O_info_t o;
            return H5Oget_info_by_name2(src, link, &o, H5O_INFO_BASIC, H5P_DEFAULT) >= 0 &&
                   o.type == H5O_TYPE_GROUP;
        }();
        if (above_replaced(name)) {
            if (!group)
                throw Error("output file " + in_quotes(from) + " holds " + in_quotes(name) +
                            ", which is not a group, where the workflow writes a dataset below "
                            "it; remove it or write the output elsewhere");
            Hid s = group_id(H5Gopen2(src, link, H5P_DEFAULT));
            Hid d = group_id(H5Gcreate2(dst, link, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
            if (!s || !d) fail("group " + in_quotes(name));
            copy_group(s.get(), d.get(), name);
            return;
        }
        // Soft and external links are copied as links (their targets are not followed);
        // hard-linked objects are copied whole, with their attributes and members.
        bool ok = true;
        if (info.type == H5L_TYPE_HARD) {
            ok = H5Ocopy(src, link, dst, link, H5P_DEFAULT, H5P_DEFAULT) >= 0;
        } else if (info.type == H5L_TYPE_SOFT || info.type == H5L_TYPE_EXTERNAL) {
            std::vector<char> value(info.u.val_size + 1, '\0');
            ok = H5Lget_val(src, link, value.data(), value.size(), H5P_DEFAULT) >= 0;
            if (ok && info.type == H5L_TYPE_SOFT) {
                ok = H5Lcreate_soft(value.data(), dst, link, H5P_DEFAULT, H5P_DEFAULT) >= 0;
            } else if (ok) {
                const char *file = nullptr, *object = nullptr;
                unsigned flags = 0;
                ok = H5Lunpack_elink_val(value.data(), info.u.val_size, &flags, &file, &object) >=
                         0 &&
                     H5Lcreate_external(file, object, dst, link, H5P_DEFAULT, H5P_DEFAULT) >= 0;
            }
        } else {
            ok = false;  // a user-defined link class: nothing tra could copy faithfully
        }
        if (!ok) fail(in_quotes(name));
    }

    void copy_group(hid_t src, hid_t dst, const std::string& name) const {
        copy_attributes(src, dst, name);
        H5G_info_t info;
        if (H5Gget_info(src, &info) < 0) fail("group " + in_quotes(name));
        for (hsize_t i = 0; i < info.nlinks; ++i) {
            const ssize_t len = H5Lget_name_by_idx(src, ".", H5_INDEX_NAME, H5_ITER_INC, i, nullptr,
                                                   0, H5P_DEFAULT);
            if (len < 0) fail("the members of " + in_quotes(name));
            std::vector<char> link(static_cast<std::size_t>(len) + 1, '\0');
            H5Lget_name_by_idx(src, ".", H5_INDEX_NAME, H5_ITER_INC, i, link.data(), link.size(),
                               H5P_DEFAULT);
            copy_link(src, dst, name, link.data());
        }
    }
};

}  // namespace

void copy_kept_objects(const std::string& from, const std::string& to,
                       const std::vector<std::string>& replaced) {
    detail::silence_hdf5_errors();
    if (H5Fis_hdf5(from.c_str()) <= 0) return;
    Copy copy{from, to, {}};
    for (const auto& r : replaced) copy.replaced.insert(absolute_name(r));
    Hid fapl = detail::access_plist();
    Hid src = detail::file_id(H5Fopen(from.c_str(), H5F_ACC_RDONLY, fapl.get()));
    if (!src)
        throw Error("cannot open HDF5 file " + in_quotes(from) + " to keep its other objects");
    Hid dst = detail::file_id(H5Fcreate(to.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl.get()));
    if (!dst) throw Error("cannot create HDF5 file " + in_quotes(to));
    Hid src_root = group_id(H5Gopen2(src.get(), "/", H5P_DEFAULT));
    Hid dst_root = group_id(H5Gopen2(dst.get(), "/", H5P_DEFAULT));
    if (!src_root || !dst_root) copy.fail("the root group");
    copy.copy_group(src_root.get(), dst_root.get(), "/");
    src_root.reset();
    dst_root.reset();
    if (!dst.close()) throw Error("cannot write HDF5 file " + in_quotes(to), {}, ErrorKind::Failed);
}

}  // namespace tra::storage
