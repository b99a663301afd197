//! The error-code catalogue: every distinct error `#[tile_kernel]` can
//! emit has one stable [`Code`] `TKnnnn`, printed at the start of the
//! error's first line and documented in `docs/errors.md`.
//!
//! Codes are data: diagnostics (and the macro crate's syntax errors) are
//! built from the constants below (`Code::UNKNOWN_INSTRUCTION`), so a code
//! cannot be mistyped at a use site. The hundreds digit is the [`Area`].
//! A code is never reused for another problem; a retired code keeps its
//! number out of use.

use std::fmt;

/// A part of the catalogue: the hundreds digit of its codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Area {
    /// TK00xx: the attribute's arguments and the syntax of the body.
    Syntax,
    /// TK01xx: the signature, parameters, names, tiles and views.
    Names,
    /// TK02xx: opcodes and operands (SPEC §4 rules 1-7, the shape part of 10).
    Operands,
    /// TK03xx: register data flow (rules 8, 9, order independence,
    /// predicated writes).
    DataFlow,
    /// TK04xx: memory safety (bounds, alignment, races, `.nc`).
    Memory,
    /// TK05xx: runtime values and control flow.
    Values,
    /// TK06xx: size symbols, launch shape and compile-time budgets.
    Launch,
}

impl Area {
    /// Every area, in code order.
    pub const ALL: [Area; 7] = [
        Area::Syntax,
        Area::Names,
        Area::Operands,
        Area::DataFlow,
        Area::Memory,
        Area::Values,
        Area::Launch,
    ];

    /// The hundreds digit of this area's codes.
    pub const fn hundreds(self) -> u16 {
        match self {
            Area::Syntax => 0,
            Area::Names => 1,
            Area::Operands => 2,
            Area::DataFlow => 3,
            Area::Memory => 4,
            Area::Values => 5,
            Area::Launch => 6,
        }
    }

    pub const fn title(self) -> &'static str {
        match self {
            Area::Syntax => "Attribute and syntax",
            Area::Names => "Signature, names, tiles and views",
            Area::Operands => "Opcodes and operands",
            Area::DataFlow => "Register data flow",
            Area::Memory => "Memory safety",
            Area::Values => "Runtime values and control flow",
            Area::Launch => "Symbols, launch shape and budgets",
        }
    }
}

/// One entry of the catalogue. Displays as `TKnnnn`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Code {
    number: u16,
    ident: &'static str,
    title: &'static str,
    area: Area,
    call_site: bool,
    lint: bool,
}

impl Code {
    /// The number (`205` for TK0205).
    pub const fn number(self) -> u16 {
        self.number
    }

    /// The name of its constant (`"UNKNOWN_INSTRUCTION"`), for tests that
    /// check every code is used.
    pub const fn ident(self) -> &'static str {
        self.ident
    }

    /// A short title: the heading of its section in `docs/errors.md`.
    pub const fn title(self) -> &'static str {
        self.title
    }

    pub const fn area(self) -> Area {
        self.area
    }

    /// Whether this error may point at the whole attribute (the macro's
    /// call site) because no better token exists, e.g. `#[tile_kernel]`
    /// without arguments.
    pub const fn call_site(self) -> bool {
        self.call_site
    }

    /// Whether this is a finding about an otherwise legal kernel (a dead
    /// tile), reported only when the kernel has no other error: a statement
    /// that failed, or that the macro could not read, may be exactly what
    /// the finding misses. The macro drops such diagnostics when it reported
    /// errors of its own (attribute, signature or syntax errors the lowering
    /// never sees).
    pub const fn is_lint(self) -> bool {
        self.lint
    }

    /// The registered code with this number.
    pub fn from_number(number: u16) -> Option<Code> {
        CODES.iter().copied().find(|c| c.number == number)
    }

    /// `"TK0205: message"`: how an error's first line starts.
    pub fn tag(self, message: impl fmt::Display) -> String {
        format!("{self}: {message}")
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TK{:04}", self.number)
    }
}

/// Defines the `Code` constants and [`CODES`] from one list, so no code can
/// be defined without being registered.
macro_rules! catalogue {
    (@call_site) => { false };
    (@call_site call_site $($rest:ident)*) => { true };
    (@call_site $other:ident $($rest:ident)*) => { catalogue!(@call_site $($rest)*) };
    (@lint) => { false };
    (@lint lint $($rest:ident)*) => { true };
    (@lint $other:ident $($rest:ident)*) => { catalogue!(@lint $($rest)*) };
    ($($area:ident {
        $( $(#[doc = $doc:literal])* $name:ident = $number:literal, $title:literal $(, $flag:ident)*; )*
    })*) => {
        impl Code {
            $($(
                $(#[doc = $doc])*
                pub const $name: Code = Code {
                    number: $number,
                    ident: stringify!($name),
                    title: $title,
                    area: Area::$area,
                    call_site: catalogue!(@call_site $($flag)*),
                    lint: catalogue!(@lint $($flag)*),
                };
            )*)*
        }

        /// Every registered code, in number order.
        pub const CODES: &[Code] = &[$($(Code::$name,)*)*];
    };
}

catalogue! {
    Syntax {
        /// `NestedMeta` could not parse the attribute's argument list.
        ATTRIBUTE_SYNTAX = 1, "malformed attribute arguments";
        UNKNOWN_ATTRIBUTE = 2, "unknown attribute argument";
        DUPLICATE_ATTRIBUTE = 3, "attribute argument given twice";
        /// With no attribute arguments at all there is no token to point at.
        MISSING_LAUNCH_SHAPE = 4, "missing `grid` or `block`", call_site;
        LAUNCH_EXTENT_SYNTAX = 5, "malformed `grid` or `block` value";
        ATTRIBUTE_VALUE_KIND = 6, "attribute argument of the wrong kind";
        UNKNOWN_TARGET = 7, "unknown target architecture";
        CRATE_PATH = 8, "`crate` is not a path";
        NOT_A_FUNCTION = 9, "attribute on something other than a function";
        UNSUPPORTED_STATEMENT = 10, "not a tile-language statement";
        MALFORMED_LET = 11, "malformed `let` binding";
        MALFORMED_FOR = 12, "malformed `for` loop";
        MALFORMED_APPLY = 13, "malformed `apply` call";
        UNKNOWN_KEYWORD = 14, "unknown keyword argument of `apply`";
        DUPLICATE_KEYWORD = 15, "keyword argument given twice";
        KEYWORD_VALUE = 16, "keyword argument of the wrong kind";
        UNSUPPORTED_OPERAND = 17, "unsupported operand expression";
        LITERAL_OUT_OF_RANGE = 18, "number literal out of range";
        UNKNOWN_VIEW = 19, "unknown view method";
        MALFORMED_VIEW = 20, "malformed view call";
        MALFORMED_SLICE = 21, "malformed `s![..]`";
        NOT_CONSTANT = 22, "expected a compile-time integer constant";
        CONSTANT_OVERFLOW = 23, "constant expression out of range";
        DIVISION_BY_ZERO = 24, "division by zero in a constant expression";
        MALFORMED_ALLOC = 25, "malformed `alloc_local`";
        /// A statement (or the signature) is not valid Rust yet, typically
        /// while it is being typed; the launcher is still emitted.
        KERNEL_SYNTAX = 26, "the kernel does not parse as Rust";
        /// Syntax outside the scalar-function language (loops, indexing,
        /// assignments) in an `ewise` function.
        SCALAR_SYNTAX = 27, "unsupported syntax in a scalar function";
        MALFORMED_EWISE = 28, "malformed `ewise` call";
        /// A kernel function whose signature is not `fn name(p: Tile, ..)`
        /// (a parameter type other than `Tile`, `Tensor`, `Shared`,
        /// `usize`), or `#[tile_kernel::function]` on something else.
        MALFORMED_KERNEL_FUNCTION = 29, "malformed kernel function";
    }
    Names {
        FN_QUALIFIER = 101, "unsupported function qualifier";
        GENERIC_KERNEL = 102, "generic kernel";
        RETURN_VALUE = 103, "kernel with a return type";
        PARAM_PATTERN = 104, "parameter that is not a plain name";
        RESERVED_PARAM = 105, "reserved parameter name `device`";
        PARAM_TYPE = 106, "unsupported parameter type";
        MALFORMED_TENSOR = 107, "malformed `Tensor` type";
        UNKNOWN_DTYPE = 108, "unsupported element type";
        BOOL_ELEMENT = 109, "`bool` tensor or view elements";
        DIM_FORM = 110, "unsupported tensor dim expression";
        NEGATIVE_DIM = 111, "tensor dim that may be negative";
        TENSOR_TOO_LARGE = 112, "tensor larger than 1 TiB";
        NAME_CLASH = 113, "parameter name declared twice";
        NON_ASCII_NAME = 114, "non-ASCII kernel name";
        UNKNOWN_NAME = 115, "cannot find a name";
        NOT_A_PLACE = 116, "a value where a tile or tensor is expected";
        NOT_A_VALUE = 117, "a tile or tensor where a value is expected";
        TILE_SHAPE = 118, "invalid local tile shape";
        SLICE_ITEMS = 119, "slice with more items than axes";
        SLICE_STEP = 120, "slice step that is not positive";
        SLICE_EXTENT = 121, "slice extent that is not a compile-time constant";
        SLICE_REVERSED = 122, "slice that starts past its end";
        RUNTIME_TILE_INDEX = 123, "local tile indexed by a runtime value";
        DTYPE_VIEW = 124, "`.view::<U>()` that cannot reinterpret the view";
        RESHAPE = 125, "invalid `.reshape`";
        UNSQUEEZE_AXIS = 126, "`.unsqueeze` axis out of range";
        /// `.broadcast([..])` to a shape the view cannot be read as: another
        /// rank, a changed register axis, or a repeat axis of extent
        /// other than 1 given another extent.
        BROADCAST = 127, "invalid `.broadcast`";
        /// An argument of a kernel function of another kind than its
        /// parameter (a tensor for a `Tile`, a tile for a `usize`) or of
        /// another element type.
        CALL_ARGUMENT = 128, "kernel function argument of the wrong kind";
        CALL_ARITY = 129, "kernel function called with the wrong number of arguments";
        /// A kernel function that calls itself, directly or through others.
        RECURSIVE_CALL = 130, "kernel function that calls itself";
        /// A shared buffer's `layout = ".."` that is unknown or that its
        /// shape does not admit.
        SHARED_LAYOUT = 131, "shared layout the buffer cannot have";
        /// `.in_cta(rank)` on something other than a shared buffer, in a
        /// kernel without a cluster, or twice in one view.
        IN_CTA = 132, "`.in_cta` where no other CTA's buffer can be named";
        /// `.permute([..])` whose list is not an order of the view's axes
        /// (each axis once), or on a view of a scoped tile's parts.
        PERMUTE = 133, "invalid `.permute`";
    }
    Operands {
        MALFORMED_OPCODE = 201, "malformed opcode text";
        UNKNOWN_INSTRUCTION = 202, "unknown PTX instruction";
        UNKNOWN_MODIFIER = 203, "unknown modifier";
        MISPLACED_MODIFIER = 204, "misplaced modifier";
        DUPLICATE_MODIFIER = 205, "two modifiers for one slot";
        MISSING_MODIFIER = 206, "missing required modifier";
        INCOMPATIBLE_MODIFIERS = 207, "modifiers that no form combines";
        ILLEGAL_FORM = 208, "modifier combination that PTX forbids";
        TARGET_TOO_OLD = 209, "instruction needs a newer target";
        UNKNOWN_SCOPE = 210, "unknown `scope`";
        // 211 ("`scope` not yet supported") is retired: every scope is
        // supported, warpgroups in blocks of several too.
        OPERAND_COUNT = 212, "wrong number of operands";
        OPERAND_KIND = 213, "register operand where memory is expected, or the reverse";
        REPEAT_SHAPE = 214, "operands with different repeat shapes";
        REGISTER_EXTENT = 215, "register axis of the wrong extent";
        UNEVEN_REGISTER_SPLIT = 216, "view that splits registers unevenly";
        OPERAND_TYPE = 217, "operand dtype that the PTX type does not carry";
        SCALAR_DESTINATION = 218, "scalar or literal as a destination";
        SCALAR_IN_GROUP = 219, "scalar or literal in a register group";
        LITERAL_TYPE = 220, "literal that does not fit the operand type";
        MEMORY_EXTENT = 221, "memory operand of the wrong extent";
        MEMORY_NOT_CONTIGUOUS = 222, "memory operand that is not contiguous";
        OPERAND_EXTENT_NOT_CONSTANT = 223, "operand extent that is not a compile-time constant";
        /// A form registered and certified but needing a language feature
        /// that does not exist yet (scopes, shared memory, barriers).
        FORM_NOT_USABLE = 224, "instruction form not usable yet";
        /// A register, tensor or runtime value where the form takes a
        /// compile-time integer (`lop3`'s LUT).
        IMMEDIATE_REQUIRED = 225, "operand that must be a compile-time integer";
        /// A compile-time integer outside the operand's legal range.
        IMMEDIATE_RANGE = 226, "immediate out of range";
        /// `sreg("%name")` with a name the form does not read.
        UNKNOWN_SPECIAL_REGISTER = 227, "unknown special register";
        /// A group tile or scoped operand whose leading axes do not bind the
        /// threads of its scope (`[16, 4]` for a warp).
        GROUP_EXTENT = 228, "group axes that do not match the scope";
        /// A tile owned by one scope where an `apply` of another needs it (a
        /// per-thread tile in a warp `apply`, a warp tile used whole per thread).
        SCOPE_MISMATCH = 229, "operand owned by another scope";
        /// A group tile's group axes indexed by something other than the
        /// thread's own rank.
        GROUP_INDEX = 230, "another thread's part of a group tile";
        /// A collective in an `apply` of another scope than its own.
        COLLECTIVE_SCOPE = 231, "collective outside its scope";
        /// A collective's member mask written as an operand.
        MEMBERMASK_GIVEN = 232, "member mask given explicitly";
        /// A runtime integer (`N`, `thread_id(0)`) in an integer operand
        /// whose type cannot hold every value it may take.
        INDEX_OPERAND_RANGE = 233, "runtime integer that may not fit the operand type";
        /// A broadcast view (one element read at several repeat
        /// coordinates) as a destination.
        BROADCAST_DESTINATION = 234, "broadcast view as a destination";
        /// An `ewise` whose inputs do not match its function's parameters
        /// in number, or a call with the wrong number of arguments.
        EWISE_ARITY = 235, "scalar function given the wrong number of values";
        /// A type mismatch in a scalar function: its inputs, operators,
        /// `if` arms, literals or result.
        EWISE_TYPE = 236, "mismatched types in a scalar function";
        /// An operator, call or cast PTX has no instruction for on that
        /// type, or an instruction that is not register to register.
        EWISE_OPERATION = 237, "operation a scalar function cannot perform";
        /// An `ewise` operand that is not a register tile of the
        /// destination's shape (a tensor, a shared buffer, another shape).
        EWISE_OPERAND = 238, "`ewise` operand that is not a register tile of the destination's shape";
        /// A scalar function reading a tile, or a `fn` item reading the
        /// kernel's values.
        EWISE_CAPTURE = 239, "scalar function reading what it cannot";
        /// A `src-size` written by the user: only the compiler's
        /// (`zero_fill`) is proven to stay inside the source.
        SRC_SIZE_GIVEN = 240, "`src-size` written in a `cp.async`";
        /// `zero_fill` on a form that cannot zero-fill.
        ZERO_FILL_FORM = 241, "`zero_fill` on a form without a `src-size`";
        /// `zero_fill` on an `apply` of several copies.
        ZERO_FILL_REPEAT = 242, "`zero_fill` on an `apply` of several copies";
        /// An mbarrier form's barrier operand outside an
        /// `alloc_shared::<Mbarrier>` buffer.
        MBARRIER_OPERAND = 243, "mbarrier operand that is not an mbarrier object";
        /// Another form's memory operand in an `alloc_shared::<Mbarrier>` buffer.
        MBARRIER_ACCESS = 244, "mbarrier object accessed by a form other than `mbarrier`";
        /// A `try_wait`'s `done` written by the user: the compiler's retry
        /// loop is the only wait the checker follows.
        WAIT_PREDICATE_GIVEN = 245, "`done` predicate written in an mbarrier wait";
        /// A bulk copy whose `size` is not the bytes of its views, or
        /// whose views are not whole runs of 16-byte multiples.
        BULK_SIZE = 246, "bulk copy size that does not match its views";
        /// A tensor-map operand that is not a slice of a tensor parameter
        /// with a box the hardware takes (rank, extents, 16-byte rows).
        TENSOR_BOX = 247, "tensor-map box that the hardware cannot copy";
        /// A `wgmma` shared operand that no matrix descriptor describes (its
        /// buffer's layout, its shape, its start), or a transpose operand
        /// that contradicts it.
        MATRIX_OPERAND = 248, "shared view that is not a wgmma matrix operand";
        /// A bulk or tensor copy into or out of a laid-out shared buffer.
        LAYOUT_COPY = 249, "bulk or tensor copy of a laid-out shared buffer";
        /// A view of another CTA's shared buffer (`.in_cta`) given to a
        /// form that cannot address it: anything but a `.shared::cluster`
        /// load, store or atomic.
        REMOTE_SHARED_FORM = 250, "another CTA's shared buffer in a form that cannot address it";
        /// A destination written for an operand the instruction takes only
        /// as the sink `_` (the `state` of an arrive on another CTA's
        /// mbarrier).
        SINK_ONLY_GIVEN = 251, "destination given where the instruction takes only the sink `_`";
    }
    DataFlow {
        OVERLAPPING_DESTINATIONS = 301, "destination register written twice by one `apply`";
        READ_BEFORE_WRITE = 302, "read of a register no earlier statement wrote";
        READ_OF_PREDICATED_WRITE = 303, "a store, atomic, collective or condition observes a value defined only under a guard";
        PRESERVE_DST_WITHOUT_PRED = 304, "`preserve_dst` without `pred`";
        PRESERVE_DST_MEMORY = 305, "`preserve_dst` on a memory-only destination";
        PRESERVE_DST_UNWRITTEN = 306, "`preserve_dst` over a destination never written";
        ORDER_DEPENDENCE = 307, "result that depends on the expansion order";
        /// A tile some statement writes but no statement reads; a lint.
        UNREAD_TILE = 308, "tile written but never read", lint;
    }
    Memory {
        OUT_OF_BOUNDS = 401, "index or slice out of bounds";
        MISALIGNED = 402, "misaligned memory access";
        ALIGNMENT_UNPROVEN = 403, "memory access not provably aligned";
        RACE = 404, "possible race between threads";
        NC_OF_WRITTEN = 405, "read-only load (`.nc`, `ldu`) of a tensor the kernel writes";
        /// Two threads may touch the same bytes of a shared buffer, one of
        /// them writing, with no CTA barrier in between.
        SHARED_RACE = 406, "possible shared-memory race between barriers";
        /// A shared buffer in a global or generic form's address, or a
        /// global tensor in a `.shared` form's.
        MEMORY_SPACE = 407, "memory operand in the wrong state space";
        /// Atomics of different sizes that threads may apply to
        /// overlapping bytes: atomicity holds only between same-size,
        /// same-address atomics.
        ATOMIC_SIZES = 408, "atomics of different sizes on overlapping bytes";
        /// A `.cta` or `.cluster` atomic on an element threads of several
        /// CTAs can reach.
        ATOMIC_SCOPE = 409, "atomic whose scope is narrower than the threads that reach it";
        /// An access to shared bytes an asynchronous copy may still be
        /// writing (before the wait that retires its group).
        ASYNC_IN_FLIGHT = 410, "access to bytes an asynchronous copy may still be writing";
        /// Another thread's access to bytes a retired copy wrote, with no
        /// CTA barrier after the wait.
        ASYNC_UNPUBLISHED = 411, "access to another thread's copied bytes before a barrier";
        /// A copy that may be pending where the kernel ends.
        ASYNC_NEVER_WAITED = 412, "asynchronous copy never waited for";
        /// A store to global bytes a pending copy may still read.
        ASYNC_SOURCE_WRITTEN = 413, "store to the source of a pending asynchronous copy";
        /// A copy into shared bytes other threads may still access, with
        /// no CTA barrier in between (a stage refilled before it is empty).
        ASYNC_COPY_RACE = 414, "asynchronous copy into bytes other threads may still access";
        /// An mbarrier used where one of its buffer's objects may not be
        /// initialized (or the objects have different counts).
        MBARRIER_UNINITIALIZED = 415, "mbarrier used before it is initialized";
        /// `mbarrier.init` of an object that may still be live.
        MBARRIER_REINIT = 416, "mbarrier initialized while it may be live";
        /// A wait whose parity is not the last completed phase's, or whose
        /// phase the checker cannot name.
        MBARRIER_PHASE = 417, "mbarrier wait on the wrong phase";
        /// A wait for a phase no earlier arrival completes (a hang).
        MBARRIER_NEVER_COMPLETES = 418, "mbarrier wait that never completes";
        /// Arrivals that do not match the init count or the phase in
        /// progress, or that the checker cannot count.
        MBARRIER_ARRIVALS = 419, "mbarrier arrivals that do not match its count";
        /// A phase completed while other threads may still wait for the
        /// object's previous phase.
        MBARRIER_OVERRUN = 420, "mbarrier phase completed before other threads waited for the last";
        /// A bulk copy whose bytes are not provably in bounds: a guard
        /// would skip it, and its bytes would never reach its mbarrier.
        BULK_BOUNDS = 421, "bulk copy not provably in bounds";
        /// A phase whose expected transaction bytes differ from what the
        /// bulk copies signalling it deliver, or that the checker cannot
        /// count.
        MBARRIER_TX = 422, "mbarrier transaction bytes that do not match the copies";
        /// An async-proxy access (a bulk copy) without the proxy fence
        /// that orders the generic-proxy writes before it.
        PROXY_FENCE = 423, "async-proxy access without a proxy fence";
        /// A bulk or tensor store to global bytes an earlier async store of
        /// the same thread may still be writing (the async proxy does not
        /// keep a thread's stores in order).
        ASYNC_STORE_ORDER = 424, "async store to bytes an earlier async store may still be writing";
        /// A tensor that bulk or tensor stores write is accessed some other
        /// way in the kernel (the async proxy's writes are not ordered with
        /// the generic proxy's accesses).
        ASYNC_STORE_MIXED = 425, "tensor written by async stores also accessed another way";
        /// A `wgmma.mma_async` whose registers other instructions accessed
        /// with no `wgmma.fence` since.
        WGMMA_FENCE = 426, "wgmma without a wgmma.fence after register accesses";
        /// An access to the registers of a `wgmma.mma_async` before a
        /// `wgmma.wait_group` retires it.
        WGMMA_IN_FLIGHT = 427, "registers of an in-flight wgmma accessed";
        /// A `wgmma.mma_async` still in flight where the kernel ends.
        WGMMA_NEVER_WAITED = 428, "wgmma never waited for";
        /// A `barrier.cluster.wait` without its `barrier.cluster.arrive`
        /// just before in the same block (or the reverse), or a memory
        /// access or barrier between the two.
        CLUSTER_BARRIER_PAIRING = 429, "cluster barrier halves not paired";
        /// An access to another CTA's shared buffer that a cluster
        /// barrier does not follow on some path from the kernel's start
        /// (the other CTA may not have started).
        REMOTE_BEFORE_CLUSTER_BARRIER = 430, "another CTA's shared memory accessed before a cluster barrier";
        /// An access to another CTA's shared buffer after which the
        /// kernel can end without a cluster barrier (the other CTA may
        /// have exited).
        REMOTE_AFTER_CLUSTER_BARRIER = 431, "another CTA's shared memory accessed after the last cluster barrier";
        /// A multicast copy, an arrival on another CTA's mbarrier, or an
        /// operation on a ring either signals, under an `if`, loop or
        /// `pred` that may differ between the CTAs of a cluster (the ring
        /// proof assumes every CTA runs them alike).
        CLUSTER_RING_ASYMMETRIC = 432, "cluster ring operation that may run differently in the CTAs of a cluster";
        /// A multicast tensor copy whose CTA mask is not every CTA of the
        /// cluster, or whose CTAs' destinations overlap.
        MULTICAST_COPY = 433, "multicast copy that does not give each CTA of the cluster its own bytes";
        /// An arrival on another CTA's mbarrier whose CTA is not one fixed
        /// permutation of the cluster's ranks, or that does not release at
        /// cluster scope.
        REMOTE_ARRIVAL = 434, "arrival on another CTA's mbarrier that the ring proof cannot follow";
        /// A wait on a ring other CTAs arrive on that does not acquire at
        /// cluster scope.
        CLUSTER_WAIT_SCOPE = 435, "wait on a ring other CTAs arrive on without `.acquire.cluster`";
    }
    Values {
        NOT_BOOL = 501, "condition that is not a bool";
        NOT_INTEGER = 502, "bool where an integer is expected";
        UNSUPPORTED_EXPRESSION = 503, "unsupported runtime expression";
        UNKNOWN_FUNCTION = 504, "unknown function";
        BUILTIN_ARITY = 505, "built-in called with the wrong number of arguments";
        BUILTIN_AXIS = 506, "built-in axis other than 0, 1 or 2";
        OPERATOR_TYPES = 507, "operator applied to the wrong type";
        PARAM_NOT_INDEX = 508, "parameter type not usable in index arithmetic";
        LITERAL_INDEX_RANGE = 509, "integer literal out of range for index arithmetic";
        INDEX_OVERFLOW = 510, "index value that may overflow 64 bits";
        NEGATIVE_OPERAND = 511, "operand not provably non-negative";
        DIVISOR_NOT_POSITIVE = 512, "divisor not provably at least 1";
        SHIFT_TOO_LARGE = 513, "shift amount not provably below 64";
        LOOP_STEP = 514, "loop step not at least 1";
        UNROLL_LIMIT = 515, "constant-bound loop unrolls too often";
        /// A collective under an `if`, runtime loop or `pred` that can
        /// differ between the threads of its scope.
        DIVERGENT_COLLECTIVE = 516, "collective under divergent control flow";
        /// A `wgmma` operand (a shared matrix's start, `scale-d`) that may
        /// differ between the threads of a warpgroup.
        WARPGROUP_OPERAND = 517, "wgmma operand that differs within the warpgroup";
    }
    Launch {
        LAUNCH_EXTENT_ZERO = 601, "grid or block extent below 1";
        BLOCK_TOO_LARGE = 602, "block of more than 1024 threads";
        GRID_TOO_LARGE = 603, "grid extent above the hardware limit";
        UNKNOWN_GRID_SYMBOL = 604, "grid uses a name that is not a size symbol";
        GRID_EXPRESSION = 605, "unsupported grid expression";
        REGISTER_BUDGET = 606, "tiles exceed the register budget";
        TILE_TOO_LARGE = 607, "local tile too large";
        INSTRUCTION_LIMIT = 608, "kernel expands to too many instructions";
        /// An expression or block deeper than the checker's recursion allows.
        NESTING_LIMIT = 609, "expression or block nested too deeply";
        /// A runtime value or condition above the size caps (terms, degree,
        /// condition nodes).
        EXPRESSION_LIMIT = 610, "runtime expression too large";
        /// A warp or warpgroup scope in a block that is not whole warps or
        /// warpgroups.
        PARTIAL_SCOPE = 611, "scope the block does not fill";
        /// Shared buffers over the 48 KiB a kernel may declare statically.
        SHARED_TOO_LARGE = 612, "shared buffers over 227 KiB";
        /// A shared extent that is neither a constant nor a form of a size
        /// symbol the launcher knows.
        SHARED_EXTENT = 613, "shared extent not known at launch";
        /// A second shared buffer sized at launch.
        SECOND_DYNAMIC_SHARED = 614, "second dynamic shared buffer";
        /// A scalar function whose inlined calls expand past the limit.
        EWISE_TOO_LARGE = 615, "scalar function that expands to too many instructions";
        /// `setmaxnreg` counts the CTA's registers cannot satisfy.
        SETMAXNREG_POOL = 616, "setmaxnreg count the register pool cannot grant";
        /// A `setmaxnreg` a warpgroup may run other than once, or after a
        /// wait that can deadlock with an `.inc`.
        SETMAXNREG_PLACEMENT = 617, "setmaxnreg its warpgroup may not run exactly once";
        /// `cluster = ..` on a target without thread-block clusters.
        CLUSTER_TARGET = 618, "cluster on a target before sm_90";
        /// A cluster of more than 8 CTAs, or one a constant grid extent is
        /// not a multiple of.
        CLUSTER_SHAPE = 619, "cluster shape the launch cannot have";
    }
}
