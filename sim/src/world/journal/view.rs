//! What the journal records of this model (see `super`): filled in with the model's lockstep reference.

/// An input or a decision of this model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewStep {}
