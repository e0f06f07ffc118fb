// io_number.cpp: the text reader's decimal-to-double path, with Debian's
// libfast-float-dev (Lemire's fast_float, header only): exact (correctly
// rounded, as strtod in its default rounding) and several times faster than
// our own 128-bit path on 17-digit decimals. C linkage; no exceptions, no
// RTTI and no libstdc++ symbols, so the C programs that link it need no C++
// runtime. A token it does not take whole, or whose value is not finite,
// goes to the C path (io_text.c), which decides syntax, overflow and the
// forms fast_float leaves out (a leading '+').
#include <fast_float/fast_float.h>

#include "io_internal.h" /* declares it with C linkage */

int io_parse_decimal(const char *b, const char *e, double *out)
{
    double v = 0.0;
    const fast_float::from_chars_result r = fast_float::from_chars(b, e, v);
    if (r.ec != std::errc() || r.ptr != e || !(v - v == 0.0))
        return -1;
    *out = v;
    return 0;
}

const char *io_scan_decimal(const char *p, const char *end, double *out)
{
    double v = 0.0;
    const fast_float::from_chars_result r = fast_float::from_chars(p, end, v);
    if (r.ec != std::errc() || !(v - v == 0.0))
        return nullptr;
    *out = v;
    return r.ptr;
}
