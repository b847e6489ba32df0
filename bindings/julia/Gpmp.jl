"""
    Gpmp

gpmp from Julia: products in Z[x] and batched integer arithmetic on `Vector{BigInt}`, through
libgpmp's pointer-array calls (`gpmp_*_ptr`).

A `BigInt` is a mutable object with the layout of GMP's `__mpz_struct`, so
`pointer_from_objref(x)` is an `mpz_ptr`: the calls take arrays of such pointers, read the inputs in
place and write into the result `BigInt`s, growing them through Julia's GMP allocator, on the
calling thread only (gpmp never calls the host's GMP allocator from its worker threads). Every call
keeps its vectors alive with `GC.@preserve` while libgpmp holds the pointers.

    include("bindings/julia/Gpmp.jl"); using .Gpmp
    Gpmp.polymul(BigInt[1, 2], BigInt[3, -1])          # BigInt[3, 5, -2]
    Gpmp.powm(BigInt[2, 3], BigInt[10, 20], big(1000))  # BigInt[24, 401]

The library is `ENV["GPMP_LIB"]` when set (a path to libgpmp.so), else `libgpmp` from the loader's
search path. Errors throw `GpmpError`; a call stopped by `gpmp_interrupt_all` throws
`InterruptException`.
"""
module Gpmp

export polymul, polysqr, add, sub, mul, addmul!, addmod, submod, mulmod, powm, set_num_threads

const libgpmp = get(ENV, "GPMP_LIB", "libgpmp")

const GPMP_SUCCESS = Cint(0)
const GPMP_INTERRUPTED = Cint(3)

"""A failed gpmp call: its `gpmp_status` and `gpmp_last_error()`."""
struct GpmpError <: Exception
    status::Cint
    msg::String
end

Base.showerror(io::IO, e::GpmpError) = print(io, "gpmp: ", e.msg, " (status ", e.status, ")")

function check(s::Cint)
    s == GPMP_SUCCESS && return nothing
    s == GPMP_INTERRUPTED && throw(InterruptException())
    throw(GpmpError(s, unsafe_string(@ccall libgpmp.gpmp_last_error()::Cstring)))
end

"""The `mpz_ptr` of each element (valid while the vector is preserved)."""
ptrs(v::AbstractVector{BigInt}) = Ptr{BigInt}[pointer_from_objref(x) for x in v]

fresh(n::Integer) = BigInt[BigInt() for _ in 1:n]

const ALGS = Dict(:auto => 0, :schoolbook => 1, :kronecker => 2, :divide_conquer => 3, :toom4 => 4,
                  :toom8 => 5, :two_convolution => 6, :small_prime_ntt => 7, :big_prime_fft => 8)

"""
    polymul(f, g; alg = :auto)

The coefficients of f·g (low degree first) for coefficient vectors `f`, `g`.
"""
function polymul(f::Vector{BigInt}, g::Vector{BigInt}; alg::Symbol = :auto)
    (isempty(f) || isempty(g)) && return BigInt[]
    h = fresh(length(f) + length(g) - 1)
    GC.@preserve f g h begin
        hp, fp, gp = ptrs(h), ptrs(f), ptrs(g)
        s = if alg == :auto
            @ccall libgpmp.gpmp_poly_mul_ptr(hp::Ptr{Ptr{BigInt}}, fp::Ptr{Ptr{BigInt}}, length(f)::Csize_t,
                                             gp::Ptr{Ptr{BigInt}}, length(g)::Csize_t)::Cint
        else
            @ccall libgpmp.gpmp_poly_mul_alg_ptr(hp::Ptr{Ptr{BigInt}}, fp::Ptr{Ptr{BigInt}}, length(f)::Csize_t,
                                                 gp::Ptr{Ptr{BigInt}}, length(g)::Csize_t, ALGS[alg]::Cint)::Cint
        end
    end
    check(s)
    return h
end

"""
    polysqr(f)

The coefficients of f².
"""
function polysqr(f::Vector{BigInt})
    isempty(f) && return BigInt[]
    h = fresh(2 * length(f) - 1)
    GC.@preserve f h begin
        s = @ccall libgpmp.gpmp_poly_sqr_ptr(ptrs(h)::Ptr{Ptr{BigInt}}, ptrs(f)::Ptr{Ptr{BigInt}}, length(f)::Csize_t)::Cint
    end
    check(s)
    return h
end

# r[i] = a[i] op b[i]: the element-wise calls (`gpmp_mpz_<op>_n_ptr`).
for (name, sym) in ((:add, :gpmp_mpz_add_n_ptr), (:sub, :gpmp_mpz_sub_n_ptr), (:mul, :gpmp_mpz_mul_n_ptr))
    @eval function $name(a::Vector{BigInt}, b::Vector{BigInt})
        length(a) == length(b) || throw(DimensionMismatch("a and b have different lengths"))
        r = fresh(length(a))
        GC.@preserve a b r begin
            s = @ccall libgpmp.$sym(ptrs(r)::Ptr{Ptr{BigInt}}, ptrs(a)::Ptr{Ptr{BigInt}}, ptrs(b)::Ptr{Ptr{BigInt}},
                                    length(a)::Csize_t)::Cint
        end
        check(s)
        return r
    end
end

"""
    addmul!(r, a, b)

r[i] += a[i]·b[i], in place (the `BigInt`s of `r` are updated).
"""
function addmul!(r::Vector{BigInt}, a::Vector{BigInt}, b::Vector{BigInt})
    length(r) == length(a) == length(b) || throw(DimensionMismatch("r, a and b have different lengths"))
    GC.@preserve r a b begin
        rp = ptrs(r)
        s = @ccall libgpmp.gpmp_mpz_addmul_n_ptr(rp::Ptr{Ptr{BigInt}}, ptrs(a)::Ptr{Ptr{BigInt}}, ptrs(b)::Ptr{Ptr{BigInt}},
                                                 length(a)::Csize_t)::Cint
    end
    check(s)
    return r
end

# r[i] = (a[i] op b[i]) mod m, in [0, m), m > 1: `gpmp_mpz_<op>_n_ptr`.
for (name, sym) in ((:addmod, :gpmp_mpz_addmod_n_ptr), (:submod, :gpmp_mpz_submod_n_ptr),
                    (:mulmod, :gpmp_mpz_mulmod_n_ptr), (:powm, :gpmp_mpz_powm_n_ptr))
    @eval function $name(a::Vector{BigInt}, b::Vector{BigInt}, m::BigInt)
        length(a) == length(b) || throw(DimensionMismatch("the vectors have different lengths"))
        r = fresh(length(a))
        GC.@preserve a b m r begin
            s = @ccall libgpmp.$sym(ptrs(r)::Ptr{Ptr{BigInt}}, ptrs(a)::Ptr{Ptr{BigInt}}, ptrs(b)::Ptr{Ptr{BigInt}},
                                    m::Ref{BigInt}, length(a)::Csize_t)::Cint
        end
        check(s)
        return r
    end
end

"""
    set_num_threads(n)

gpmp's worker threads (0: all cores).
"""
set_num_threads(n::Integer) = check(@ccall libgpmp.gpmp_set_num_threads(n::Cint)::Cint)

end # module
