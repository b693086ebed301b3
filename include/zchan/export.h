/**
 * @file zchan/export.h
 * Symbol visibility for the public API: the shared library exports only the functions
 * marked ZC_EXPORT (everything else is built with hidden visibility).
 */
#ifndef ZCHAN_EXPORT_H
#define ZCHAN_EXPORT_H

#if defined(_WIN32) && defined(ZCHAN_BUILDING_SHARED)
#define ZC_EXPORT __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define ZC_EXPORT __attribute__((visibility("default")))
#else
#define ZC_EXPORT
#endif

#endif /* ZCHAN_EXPORT_H */
