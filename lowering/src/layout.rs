//! Strided views of tiles and tensors.
//!
//! A [`Layout`] maps a multi-index to a byte offset inside the underlying
//! storage (a local tile's registers or a global tensor's memory). Offsets,
//! strides and extents are [`Poly`]s: constants for tiles, and for tensors
//! possibly symbolic (`Tensor<f32, M, K>` has a row stride of `4 * K`) or
//! runtime (`x.slice(s![i..i + 4])` starts at `4 * i`). Strides are in
//! *bytes* so that dtype views (`u32` -> `u16` halves) are exact: element 0
//! of a `u32` -> `u16` view is the low half (little-endian).
//! View operations never move data; they only build a new layout.
//!
//! Guarantee: every slice returns the [`Bound`]s under which it stays inside
//! the view it was cut from; a layout built from in-bounds slices of a
//! tensor addresses only that tensor's bytes.

use crate::diag::{Code, SpanId};
use crate::dtype::DType;
use crate::sym::{AtomId, Poly};

/// The shape, strides and offset of a view, in bytes of its storage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub dtype: DType,
    pub shape: Vec<Poly>,
    /// Byte distance between neighbours along each axis.
    pub strides: Vec<Poly>,
    /// Byte offset of element `[0, 0, ..]`.
    pub offset: Poly,
    /// Which indices of the underlying tensor's own axes the view can reach.
    pub region: Region,
}

/// The indices a view reaches along each axis of the tensor it was cut
/// from: `start + i * step` for `i < count`. Exact while only slices,
/// unsqueezes and reshapes that only insert or remove extent-1 axes were
/// applied (`axes` maps each current axis to its tensor axis, or to
/// [`NO_TENSOR_AXIS`] for an inserted one); another reshape or a dtype view
/// freezes it (still a superset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub starts: Vec<Poly>,
    pub counts: Vec<Poly>,
    pub steps: Vec<i128>,
    pub axes: Option<Vec<usize>>,
}

/// In [`Region::axes`]: an axis of extent 1 that no tensor axis backs
/// (inserted by `.unsqueeze` or a reshape).
pub const NO_TENSOR_AXIS: usize = usize::MAX;

/// A condition a slice needs to stay in bounds: `poly <= 0`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    pub le0: Poly,
    pub span: SpanId,
    /// Human wording: "`base + 8 <= N` (end of axis 0 of `x`)".
    pub what: BoundKind,
    pub axis: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundKind {
    /// The first index is not negative.
    Start,
    /// The last index is below the extent.
    End,
    /// The CTA rank of an `.in_cta(rank)` view lies in the cluster
    /// (`0 <= rank` or `rank < ` the cluster's size; `axis` is 0).
    ClusterRank,
}

/// A view operation that cannot be applied; `span` names the offending token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutError {
    pub code: Code,
    pub span: SpanId,
    pub message: String,
    pub help: Option<String>,
}

impl LayoutError {
    fn new(code: Code, span: SpanId, message: impl Into<String>) -> Self {
        LayoutError {
            code,
            span,
            message: message.into(),
            help: None,
        }
    }

    fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// One resolved `s![..]` item: bounds already evaluated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SliceBound {
    Index {
        index: Poly,
        span: SpanId,
    },
    Range {
        start: Poly,
        /// Elements selected (a constant).
        count: usize,
        step: usize,
        span: SpanId,
    },
}

/// A view with constant extents and constant strides, as one operand of an
/// `apply` sees it (the byte offset of a global view stays symbolic in
/// [`Layout`]; here it is the offset inside the accessed region).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaticLayout {
    pub dtype: DType,
    pub shape: Vec<usize>,
    /// Byte strides; `usize::MAX` marks a stride that is not a constant.
    pub strides: Vec<usize>,
    pub offset: usize,
}

impl StaticLayout {
    /// The constant part of `layout`, if its extents are constants.
    pub fn of(layout: &Layout) -> Option<StaticLayout> {
        let shape = layout.const_shape()?;
        let strides = layout
            .strides
            .iter()
            .map(|s| {
                s.as_const()
                    .and_then(|v| usize::try_from(v).ok())
                    .unwrap_or(usize::MAX)
            })
            .collect();
        let offset = layout
            .offset
            .as_const()
            .and_then(|v| usize::try_from(v).ok())
            .unwrap_or(0);
        Some(StaticLayout {
            dtype: layout.dtype,
            shape,
            strides,
            offset,
        })
    }

    pub fn len(&self) -> usize {
        self.shape
            .iter()
            .fold(1usize, |acc, d| acc.saturating_mul(*d))
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Byte offset of one element (static layouts only).
    pub fn byte_offset(&self, index: &[usize]) -> usize {
        index
            .iter()
            .zip(&self.strides)
            .fold(self.offset, |acc, (i, s)| {
                acc.saturating_add(i.saturating_mul(*s))
            })
    }
}

/// Formats constant extents like the user writes them: `[4, 2]`.
pub(crate) fn index_text(index: &[usize]) -> String {
    let parts: Vec<String> = index.iter().map(usize::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// The index, in the tile's or tensor's own shape, of the element holding
/// `offset`: diagnostics name elements as the user declared them, not in the
/// coordinates of a view.
pub(crate) fn storage_index(shape: &[usize], element: usize, offset: usize) -> String {
    let mut flat = offset / element.max(1);
    let mut index = vec![0usize; shape.len()];
    for axis in (0..shape.len()).rev() {
        let extent = shape[axis].max(1);
        index[axis] = flat % extent;
        flat /= extent;
    }
    index_text(&index)
}

pub fn shape_text(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("[{}]", dims.join(", "))
}

impl Layout {
    /// A dense row-major layout over fresh storage.
    pub fn row_major(dtype: DType, shape: &[Poly]) -> Layout {
        let mut strides = vec![Poly::default(); shape.len()];
        let mut stride = Poly::constant(dtype.size_bytes() as i128);
        for axis in (0..shape.len()).rev() {
            strides[axis] = stride.clone();
            // (The whole extent's size is no stride.)
            if axis > 0 {
                stride = stride.mul(&shape[axis]);
            }
        }
        Layout {
            dtype,
            shape: shape.to_vec(),
            strides,
            offset: Poly::default(),
            region: Region {
                starts: vec![Poly::default(); shape.len()],
                counts: shape.to_vec(),
                steps: vec![1; shape.len()],
                axes: Some((0..shape.len()).collect()),
            },
        }
    }

    /// A dense row-major layout of constant extents.
    pub fn row_major_const(dtype: DType, shape: &[usize]) -> Layout {
        let shape: Vec<Poly> = shape.iter().map(|d| Poly::constant(*d as i128)).collect();
        Layout::row_major(dtype, &shape)
    }

    /// The extents, if all are constants.
    pub fn const_shape(&self) -> Option<Vec<usize>> {
        self.shape
            .iter()
            .map(|d| d.as_const().and_then(|v| usize::try_from(v).ok()))
            .collect()
    }

    /// Whether offset and strides are constants (required of register tiles).
    pub fn is_static(&self) -> bool {
        self.offset.is_const() && self.strides.iter().all(Poly::is_const)
    }

    /// The same view with `atom` replaced by `by` everywhere (an
    /// iteration of a loop checked once in its variable).
    pub(crate) fn substitute_value(&self, atom: AtomId, value: i128) -> Layout {
        let each = |polys: &[Poly]| {
            polys
                .iter()
                .map(|p| p.substitute_value(atom, value))
                .collect()
        };
        Layout {
            dtype: self.dtype,
            shape: each(&self.shape),
            strides: each(&self.strides),
            offset: self.offset.substitute_value(atom, value),
            region: Region {
                starts: each(&self.region.starts),
                counts: each(&self.region.counts),
                steps: self.region.steps.clone(),
                axes: self.region.axes.clone(),
            },
        }
    }

    /// Number of elements, if the shape is constant.
    pub fn len(&self) -> usize {
        self.const_shape().map_or(0, |s| {
            s.iter().fold(1usize, |acc, d| acc.saturating_mul(*d))
        })
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Byte offset of one element.
    pub fn byte_offset(&self, index: &[usize]) -> Poly {
        index
            .iter()
            .zip(&self.strides)
            .fold(self.offset.clone(), |acc, (i, s)| {
                acc.add(&s.scale(*i as i128))
            })
    }

    /// Byte offset of one element of a static layout.
    pub fn const_byte_offset(&self, index: &[usize]) -> usize {
        let offset = self.byte_offset(index).as_const().unwrap_or(0);
        usize::try_from(offset).unwrap_or(usize::MAX)
    }

    /// Whether the view walks its storage densely in row-major order.
    pub fn is_contiguous(&self) -> bool {
        let mut expected = Poly::constant(self.dtype.size_bytes() as i128);
        for axis in (0..self.shape.len()).rev() {
            if self.shape[axis] != Poly::constant(1) && self.strides[axis] != expected {
                return false;
            }
            expected = expected.mul(&self.shape[axis]);
        }
        true
    }

    /// `s![..]`: one item per leading axis; missing trailing axes are kept
    /// whole. Returns the sliced view and the bounds it needs.
    pub fn slice(
        &self,
        items: &[SliceBound],
        span: SpanId,
    ) -> Result<(Layout, Vec<Bound>), LayoutError> {
        if items.len() > self.shape.len() {
            return Err(LayoutError::new(
                Code::SLICE_ITEMS,
                span,
                format!(
                    "this slice has {} items but the view has only {} axes",
                    items.len(),
                    self.shape.len(),
                ),
            ));
        }
        let mut out = Layout {
            dtype: self.dtype,
            shape: Vec::new(),
            strides: Vec::new(),
            offset: self.offset.clone(),
            region: self.region.clone(),
        };
        let mut bounds = Vec::new();
        let mut kept_axes: Vec<usize> = Vec::new();
        for (axis, item) in items.iter().enumerate() {
            let len = &self.shape[axis];
            let stride = &self.strides[axis];
            let (start, count, step, item_span) = match item {
                SliceBound::Index { index, span } => (index.clone(), 1usize, 1usize, *span),
                SliceBound::Range {
                    start,
                    count,
                    step,
                    span,
                } => (start.clone(), *count, *step, *span),
            };
            if step == 0 {
                return Err(LayoutError::new(
                    Code::SLICE_STEP,
                    item_span,
                    "slice step must be positive",
                ));
            }
            // In bounds: 0 <= start, and the last index < len (nothing to
            // check for an empty range beyond its start <= len).
            bounds.push(Bound {
                le0: start.scale(-1),
                span: item_span,
                what: BoundKind::Start,
                axis,
            });
            let last = if count == 0 {
                start.sub(len)
            } else {
                start.add_const(((count - 1) * step) as i128 + 1).sub(len)
            };
            bounds.push(Bound {
                le0: last,
                span: item_span,
                what: BoundKind::End,
                axis,
            });
            out.offset = out.offset.add(&start.mul(stride));
            if let Some(axes) = &self.region.axes
                && axes[axis] != NO_TENSOR_AXIS
            {
                let original = axes[axis];
                let r = &mut out.region;
                r.starts[original] = r.starts[original].add(&start.scale(r.steps[original]));
                r.counts[original] = Poly::constant(count as i128);
                r.steps[original] *= step as i128;
                if matches!(item, SliceBound::Range { .. }) {
                    kept_axes.push(original);
                }
            }
            // An inserted axis (extent 1) stays one of no tensor axis.
            if let Some(axes) = &self.region.axes
                && axes[axis] == NO_TENSOR_AXIS
                && matches!(item, SliceBound::Range { .. })
            {
                kept_axes.push(NO_TENSOR_AXIS);
            }
            if matches!(item, SliceBound::Range { .. }) {
                out.shape.push(Poly::constant(count as i128));
                out.strides.push(stride.scale(step as i128));
            }
        }
        out.shape.extend_from_slice(&self.shape[items.len()..]);
        out.strides.extend_from_slice(&self.strides[items.len()..]);
        if let Some(axes) = &self.region.axes {
            kept_axes.extend_from_slice(&axes[items.len()..]);
            out.region.axes = Some(kept_axes);
        }
        Ok((out, bounds))
    }

    /// For a view whose region a reshape or dtype view froze, of a tensor
    /// of `element`-byte elements with byte strides `tensor_strides`
    /// (row-major): when the region pins every axis but the last to one
    /// index, the region on the last axis again as the interval of
    /// elements the view's bytes cover, from its byte offset and constant
    /// non-negative strides (a superset of the indices it reaches, as a
    /// frozen region is). Unchanged otherwise.
    pub fn refresh_region(&mut self, element: usize, tensor_strides: &[Poly]) {
        let element = element as i128;
        let axes = self.region.starts.len();
        if self.region.axes.is_some() || axes == 0 || tensor_strides.len() != axes {
            return;
        }
        let last_axis = axes - 1;
        if self.region.counts[..last_axis]
            .iter()
            .any(|c| c.as_const() != Some(1))
        {
            return;
        }
        let mut row = self.offset.clone();
        for (start, stride) in self
            .region
            .starts
            .iter()
            .zip(tensor_strides)
            .take(last_axis)
        {
            row = row.sub(&start.mul(stride));
        }
        if !row.divisible_by(element) {
            return;
        }
        let mut last = 0i128;
        for (len, stride) in self.shape.iter().zip(&self.strides) {
            match (len.as_const(), stride.as_const()) {
                (Some(len), Some(stride)) if len >= 1 && stride >= 0 => last += (len - 1) * stride,
                _ => return,
            }
        }
        let bytes = last + self.dtype.size_bytes() as i128;
        self.region.starts[last_axis] = row.div_exact(element);
        self.region.counts[last_axis] = Poly::constant((bytes + element - 1) / element);
        self.region.steps[last_axis] = 1;
    }

    /// `.view::<U>()`: reinterpret the bits of the final axis as `to`.
    pub fn view(&self, to: DType, span: SpanId) -> Result<Layout, LayoutError> {
        let from = self.dtype;
        if !to.is_tile_element() {
            return Err(LayoutError::new(
                Code::BOOL_ELEMENT,
                span,
                format!("cannot view tile elements as `{to}`"),
            ));
        }
        if !from.is_tile_element() {
            // Predicate registers have no bits to reinterpret.
            return Err(LayoutError::new(
                Code::BOOL_ELEMENT,
                span,
                format!(
                    "cannot view `{from}` elements as `{to}`: a `{from}` tile holds predicate registers, which have no bit layout"
                ),
            ));
        }
        let Some(last) = self.shape.last() else {
            return Err(LayoutError::new(
                Code::DTYPE_VIEW,
                span,
                "cannot change the dtype of a view with no axes",
            ));
        };
        let Some(last) = last.as_const().and_then(|v| usize::try_from(v).ok()) else {
            return Err(LayoutError::new(
                Code::DTYPE_VIEW,
                span,
                "`.view::<U>()` needs a final axis of constant extent; slice the tensor first",
            ));
        };
        let last_stride = self.strides.last().cloned().unwrap_or_default();
        if last > 1 && last_stride != Poly::constant(from.size_bytes() as i128) {
            return Err(LayoutError::new(
                Code::DTYPE_VIEW,
                span,
                format!(
                    "`.view::<{to}>()` needs a contiguous final axis, but this view steps {} bytes between `{from}` elements",
                    last_stride
                        .as_const()
                        .map_or("a runtime number of".to_string(), |s| s.to_string())
                ),
            ));
        }
        let bytes = last.saturating_mul(from.size_bytes());
        if bytes % to.size_bytes() != 0 {
            let mut err = LayoutError::new(
                Code::DTYPE_VIEW,
                span,
                format!(
                    "cannot view {last} x {from} ({bytes} bytes) as `{to}`: {bytes} is not a multiple of {}",
                    to.size_bytes()
                ),
            );
            err.help = Some(
                "a dtype view reinterprets the final axis; its byte size must divide evenly"
                    .to_string(),
            );
            return Err(err);
        }
        let mut out = self.clone();
        out.dtype = to;
        if let Some(extent) = out.shape.last_mut() {
            *extent = Poly::constant((bytes / to.size_bytes()) as i128);
        }
        if let Some(stride) = out.strides.last_mut() {
            *stride = Poly::constant(to.size_bytes() as i128);
        }
        out.region.axes = None;
        Ok(out)
    }

    /// `.reshape([..])` of a contiguous view; one extent may be `-1`.
    pub fn reshape(&self, dims: &[i64], span: SpanId) -> Result<Layout, LayoutError> {
        let Some(current) = self.const_shape() else {
            return Err(LayoutError::new(
                Code::RESHAPE,
                span,
                "cannot reshape a view whose extents are not constants; slice the tensor first",
            ));
        };
        let total = current.iter().fold(1usize, |acc, d| acc.saturating_mul(*d));
        let inferred: Vec<usize> = dims
            .iter()
            .enumerate()
            .filter(|(_, d)| **d == -1)
            .map(|(i, _)| i)
            .collect();
        if inferred.len() > 1 || dims.iter().any(|d| *d < -1) {
            return Err(LayoutError::new(
                Code::RESHAPE,
                span,
                "reshape extents must be non-negative, with at most one -1",
            ));
        }
        let Some(known) = dims
            .iter()
            .filter(|d| **d >= 0)
            .try_fold(1usize, |acc, d| acc.checked_mul(*d as usize))
        else {
            return Err(LayoutError::new(
                Code::RESHAPE,
                span,
                "reshape extents overflow",
            ));
        };
        let mut shape: Vec<usize> = dims.iter().map(|d| (*d).max(0) as usize).collect();
        if let Some(&axis) = inferred.first() {
            if known == 0 || !total.is_multiple_of(known) {
                return Err(LayoutError::new(
                    Code::RESHAPE,
                    span,
                    format!(
                        "cannot infer the -1 extent: {total} elements do not divide by {known}"
                    ),
                ));
            }
            shape[axis] = total / known;
        }
        let new_total = shape.iter().try_fold(1usize, |acc, d| acc.checked_mul(*d));
        if new_total != Some(total) {
            return Err(LayoutError::new(
                Code::RESHAPE,
                span,
                format!(
                    "cannot reshape {} ({total} elements) into {} ({} elements)",
                    shape_text(&current),
                    shape_text(&shape),
                    new_total.map_or("too many".to_string(), |n| n.to_string())
                ),
            ));
        }
        if !self.is_contiguous() {
            // Axes that are contiguous with each other merge and split;
            // the others keep their strides (`[2, 2, 8, 8]` strides `(512,
            // 128, 16, 2)` becomes `[2, 16, 8]`, strides `(512, 16, 2)`).
            let Some(strides) = strided_reshape(&current, &self.strides, &shape) else {
                return Err(LayoutError::new(
                    Code::RESHAPE,
                    span,
                    format!(
                        "cannot reshape this non-contiguous view of shape {} into {}: only axes that are contiguous with each other can merge",
                        shape_text(&current),
                        shape_text(&shape)
                    ),
                ));
            };
            let mut out = self.clone();
            out.shape = shape.iter().map(|d| Poly::constant(*d as i128)).collect();
            out.strides = strides;
            out.region.axes = self.axes_through_unit_reshape(&shape);
            return Ok(out);
        }
        let mut out = Layout::row_major_const(self.dtype, &shape);
        out.offset = self.offset.clone();
        out.region = self.region.clone();
        out.region.axes = self.axes_through_unit_reshape(&shape);
        // Only extent-1 axes inserted or removed: the strides stay.
        if out.region.axes.is_some() {
            let mut strides = Vec::with_capacity(shape.len());
            let mut old = self
                .shape
                .iter()
                .zip(&self.strides)
                .filter(|(d, _)| d.as_const() != Some(1));
            for extent in &shape {
                if *extent == 1 {
                    strides.push(Poly::default());
                } else if let Some((_, stride)) = old.next() {
                    strides.push(stride.clone());
                }
            }
            out.strides = strides;
        }
        Ok(out)
    }

    /// `.unsqueeze(axis)`: insert an extent-1 axis; negative axes count from
    /// the end, so `-1` appends a new final (register) axis.
    /// `.broadcast(dims)`: the same rank, the final (register) axis
    /// unchanged, and each repeat axis either kept or, from extent 1,
    /// widened to `dims[a]` with stride 0 (every index reads the one
    /// element). The region is unchanged: no new element is reached.
    pub fn broadcast(&self, dims: &[i64], span: SpanId) -> Result<Layout, LayoutError> {
        let shape = self.const_shape();
        let current = shape.as_ref().map_or_else(
            || "a view with runtime extents".to_string(),
            |s| shape_text(s),
        );
        let rank = self.shape.len();
        if dims.len() != rank {
            return Err(LayoutError::new(
                Code::BROADCAST,
                span,
                format!(
                    "`.broadcast` keeps the rank: this view {current} has {rank} axes, the new shape {} has {}",
                    shape_text_i64(dims),
                    dims.len()
                ),
            ));
        }
        let mut out = self.clone();
        for (axis, (&want, have)) in dims.iter().zip(&self.shape).enumerate() {
            let have = have.as_const();
            if have == Some(i128::from(want)) {
                continue;
            }
            if axis + 1 == rank {
                return Err(LayoutError::new(
                    Code::BROADCAST,
                    span,
                    format!(
                        "`.broadcast` cannot change the register axis (axis {axis}, the last): {current} would become {}",
                        shape_text_i64(dims)
                    ),
                )
                .with_help("broadcast the repeat axes only; the register axis is what one instruction reads"));
            }
            if have != Some(1) || want < 1 {
                return Err(LayoutError::new(
                    Code::BROADCAST,
                    span,
                    format!(
                        "`.broadcast` widens only axes of extent 1, but axis {axis} of {current} cannot become {want}",
                    ),
                )
                .with_help("make the axis extent 1 first (`.slice` one index, or `.unsqueeze` a new axis), then broadcast it"));
            }
            out.shape[axis] = Poly::constant(i128::from(want));
            out.strides[axis] = Poly::default();
        }
        Ok(out)
    }

    /// Whether some axis reaches one element from several indices (a
    /// broadcast axis: stride 0, extent above 1).
    pub fn is_broadcast(&self) -> bool {
        self.shape.iter().zip(&self.strides).any(|(d, s)| {
            *s == Poly::default() && d.as_const() != Some(1) && d.as_const() != Some(0)
        })
    }

    /// The view with its axes in `order` (axis `i` of the result is axis
    /// `order[i]`): the same bytes, the extents and strides permuted.
    pub fn permute(&self, order: &[i64], span: SpanId) -> Result<Layout, LayoutError> {
        let rank = self.shape.len();
        let mut seen = vec![false; rank];
        let is_order = order.len() == rank
            && order.iter().all(|&axis| {
                usize::try_from(axis)
                    .ok()
                    .filter(|&a| a < rank)
                    .is_some_and(|a| !std::mem::replace(&mut seen[a], true))
            });
        if !is_order {
            let list: Vec<String> = order.iter().map(i64::to_string).collect();
            return Err(LayoutError::new(
                Code::PERMUTE,
                span,
                format!(
                    "`.permute([{}])` is not an order of the view's {rank} axes",
                    list.join(", ")
                ),
            )
            .with_help(format!(
                "name each axis 0..{rank} once, like `.permute([{}])`",
                (0..rank)
                    .rev()
                    .map(|a| a.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let picked = |values: &[Poly]| -> Vec<Poly> {
            order.iter().map(|&a| values[a as usize].clone()).collect()
        };
        let mut out = self.clone();
        out.shape = picked(&self.shape);
        out.strides = picked(&self.strides);
        if let Some(axes) = &self.region.axes {
            out.region.axes = Some(order.iter().map(|&a| axes[a as usize]).collect());
        }
        Ok(out)
    }

    pub fn unsqueeze(&self, axis: i64, span: SpanId) -> Result<Layout, LayoutError> {
        let rank = self.shape.len() as i64;
        let position = if axis < 0 { rank + 1 + axis } else { axis };
        if position < 0 || position > rank {
            return Err(LayoutError::new(
                Code::UNSQUEEZE_AXIS,
                span,
                format!(
                    "unsqueeze axis {axis} is out of range for a view with {rank} axes (valid: {}..={rank})",
                    -(rank + 1)
                ),
            ));
        }
        let mut out = self.clone();
        out.shape.insert(position as usize, Poly::constant(1));
        out.strides.insert(position as usize, Poly::default());
        if let Some(axes) = &mut out.region.axes {
            axes.insert(position as usize, NO_TENSOR_AXIS);
        }
        Ok(out)
    }

    /// The region's axis map after a reshape to `shape` that only inserts
    /// or removes extent-1 axes (the other extents equal, in order), where
    /// every removed axis is an inserted one or reaches one tensor index;
    /// `None` (frozen) otherwise.
    fn axes_through_unit_reshape(&self, shape: &[usize]) -> Option<Vec<usize>> {
        let axes = self.region.axes.as_ref()?;
        let kept: Vec<(usize, usize)> = self
            .shape
            .iter()
            .zip(axes)
            .filter_map(|(d, a)| match d.as_const() {
                Some(1) => None,
                Some(d) => Some((usize::try_from(d).ok()?, *a)),
                None => Some((usize::MAX, *a)),
            })
            .collect();
        let wanted: Vec<usize> = shape.iter().copied().filter(|d| *d != 1).collect();
        if kept.len() != wanted.len() || kept.iter().zip(&wanted).any(|((d, _), w)| d != w) {
            return None;
        }
        // A removed extent-1 axis of a tensor: its region must be one index.
        for (d, a) in self.shape.iter().zip(axes) {
            if d.as_const() == Some(1)
                && *a != NO_TENSOR_AXIS
                && self.region.counts[*a].as_const() != Some(1)
            {
                return None;
            }
        }
        let mut kept = kept.into_iter();
        Some(
            shape
                .iter()
                .map(|d| {
                    if *d == 1 {
                        NO_TENSOR_AXIS
                    } else {
                        kept.next().map_or(NO_TENSOR_AXIS, |(_, a)| a)
                    }
                })
                .collect(),
        )
    }
}

/// `[4, 8, 1]` for messages, from the extents as written.
fn shape_text_i64(dims: &[i64]) -> String {
    let dims: Vec<String> = dims.iter().map(ToString::to_string).collect();
    format!("[{}]", dims.join(", "))
}

/// The strides of `new` over the elements of a view of shape `old` and
/// strides `strides`, or `None` where an axis of `new` would span old axes
/// that are not contiguous with each other (PyTorch's `view` rule: each
/// run of old axes with `stride[i] == stride[i + 1] * old[i + 1]` is one
/// chunk, and the new axes must split the chunks exactly).
fn strided_reshape(old: &[usize], strides: &[Poly], new: &[usize]) -> Option<Vec<Poly>> {
    let mut out = vec![Poly::default(); new.len()];
    let mut view_axis = new.len() as isize - 1;
    let mut base = strides.last().cloned().unwrap_or_default();
    let (mut old_count, mut new_count) = (1usize, 1usize);
    for axis in (0..old.len()).rev() {
        old_count *= old[axis];
        let chunk_ends =
            axis == 0 || (old[axis - 1] != 1 && strides[axis - 1] != base.scale(old_count as i128));
        if !chunk_ends {
            continue;
        }
        while view_axis >= 0 && (new_count < old_count || new[view_axis as usize] == 1) {
            out[view_axis as usize] = base.scale(new_count as i128);
            new_count *= new[view_axis as usize];
            view_axis -= 1;
        }
        if new_count != old_count {
            return None;
        }
        if axis > 0 {
            base = strides[axis - 1].clone();
            old_count = 1;
            new_count = 1;
        }
    }
    (view_axis == -1).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::strided_reshape;

    /// Contiguous runs merge and split; a split across a gap fails.
    #[test]
    fn strided_reshapes_follow_contiguous_runs() {
        let c = |v: &[i128]| v.iter().map(|x| Poly::constant(*x)).collect::<Vec<_>>();
        // [2, 2, 8, 8] of 2-byte elements, the outer axis 512 bytes apart.
        let strides = c(&[512, 128, 16, 2]);
        assert_eq!(
            strided_reshape(&[2, 2, 8, 8], &strides, &[2, 16, 8]),
            Some(c(&[512, 16, 2]))
        );
        assert_eq!(
            strided_reshape(&[2, 2, 8, 8], &strides, &[2, 2, 64]),
            Some(c(&[512, 128, 2]))
        );
        assert_eq!(strided_reshape(&[2, 2, 8, 8], &strides, &[4, 64]), None);
        assert_eq!(
            strided_reshape(&[2, 2, 8, 8], &strides, &[2, 2, 8, 2, 4]),
            Some(c(&[512, 128, 16, 8, 2]))
        );
        // Unit axes anywhere.
        assert_eq!(
            strided_reshape(&[2, 1, 16], &c(&[100, 7, 4]), &[2, 16, 1]),
            Some(c(&[100, 4, 4]))
        );
    }

    use super::*;

    const S: SpanId = SpanId(0);

    fn range(start: i128, count: usize) -> SliceBound {
        SliceBound::Range {
            start: Poly::constant(start),
            count,
            step: 1,
            span: S,
        }
    }

    #[test]
    fn column_slice_of_a_pair_tile() {
        let tile = Layout::row_major_const(DType::F32, &[4, 2]);
        let (high, _) = tile.slice(&[range(0, 4), range(1, 1)], S).unwrap();
        assert_eq!(high.const_shape(), Some(vec![4, 1]));
        assert_eq!(high.const_byte_offset(&[3, 0]), 28);
    }

    #[test]
    fn u16_view_of_u32_puts_low_half_first() {
        let words = Layout::row_major_const(DType::U32, &[4, 1]);
        let halves = words.view(DType::U16, S).unwrap().unsqueeze(-1, S).unwrap();
        assert_eq!(halves.const_shape(), Some(vec![4, 2, 1]));
        assert_eq!(halves.const_byte_offset(&[1, 0, 0]), 4);
        assert_eq!(halves.const_byte_offset(&[1, 1, 0]), 6);
    }

    #[test]
    fn view_rejects_uneven_bytes() {
        let odd = Layout::row_major_const(DType::U16, &[4, 1]);
        let err = odd.view(DType::U32, S).unwrap_err();
        assert_eq!(
            err.message,
            "cannot view 1 x u16 (2 bytes) as `u32`: 2 is not a multiple of 4"
        );
    }

    #[test]
    fn slice_bounds_and_region() {
        let tile = Layout::row_major_const(DType::U8, &[3, 5]);
        let (row, bounds) = tile
            .slice(
                &[SliceBound::Index {
                    index: Poly::constant(2),
                    span: S,
                }],
                S,
            )
            .unwrap();
        assert_eq!(row.const_shape(), Some(vec![5]));
        assert_eq!(row.offset, Poly::constant(10));
        // -2 <= 0 and 2 + 1 - 3 <= 0.
        assert_eq!(bounds[0].le0, Poly::constant(-2));
        assert_eq!(bounds[1].le0, Poly::constant(0));
        assert_eq!(row.region.starts[0], Poly::constant(2));
        assert_eq!(row.region.axes, Some(vec![1]));
    }

    #[test]
    fn reshape_infers_and_checks_counts() {
        let tile = Layout::row_major_const(DType::F32, &[4, 2, 1]);
        assert_eq!(
            tile.reshape(&[4, -1], S).unwrap().const_shape(),
            Some(vec![4, 2])
        );
        assert_eq!(
            tile.reshape(&[3, 2], S).unwrap_err().message,
            "cannot reshape [4, 2, 1] (8 elements) into [3, 2] (6 elements)"
        );
    }
}
