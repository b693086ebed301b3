/**
 * @file zchan/zchan.h
 * Umbrella header: the version and every module that was built.
 */
#ifndef ZCHAN_ZCHAN_H
#define ZCHAN_ZCHAN_H

#include <zchan/config.h>
#include <zchan/status.h>
#include <zchan/waker.h>
#include <zchan/mpmc.h>
#include <zchan/block.h>
#include <zchan/fd.h>
#include <zchan/select.h>
#include <zchan/batch.h>
#include <zchan/permit.h>
#include <zchan/closed.h>
#if defined(ZCHAN_HAS_BROADCAST)
#include <zchan/broadcast.h>
#endif
#include <zchan/typed.h>

#endif /* ZCHAN_ZCHAN_H */
