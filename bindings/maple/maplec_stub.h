/* The part of Maple's external-calling API (maplec.h) that gpmp_maple.c uses, declared from
 * Maple's documentation so that the shim compiles where Maple is not installed. With Maple, build
 * against its own maplec.h instead (make -C bindings/maple MAPLE=/path/to/maple). */
#ifndef GPMP_MAPLEC_STUB_H
#define GPMP_MAPLEC_STUB_H
#include <gmp.h>

typedef void *ALGEB;                          /* a Maple object */
typedef struct _MKernelVector *MKernelVector; /* the kernel handle passed to a custom wrapper */
typedef long M_INT;
typedef int M_BOOL;
#define M_DECL

M_INT MapleNumArgs(MKernelVector kv, ALGEB expr);          /* number of arguments / list elements */
M_BOOL IsMapleList(MKernelVector kv, ALGEB s);
M_BOOL IsMapleInteger(MKernelVector kv, ALGEB s);
ALGEB MapleListAlloc(MKernelVector kv, M_INT num_members);
void MapleListAssign(MKernelVector kv, ALGEB list, M_INT i, ALGEB val); /* i from 1 */
ALGEB MapleListSelect(MKernelVector kv, ALGEB list, M_INT i);           /* i from 1 */
void MapleToGMPInteger(MKernelVector kv, ALGEB s, mpz_t g);              /* g: read only */
ALGEB GMPIntegerToMaple(MKernelVector kv, mpz_t g);                      /* a copy of g */
M_BOOL MapleGetInterruptValue(MKernelVector kv);                         /* the user asked to stop */
void MapleRaiseError(MKernelVector kv, const char *msg);                 /* does not return */

#endif
