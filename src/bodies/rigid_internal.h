// rigid_internal.h — what rigid.c shares with the contact solver (rigid_solver.c).
#pragma once

#include "rigid.h"

// The impulse j at world point p applied to the velocities *v, *w (the body's own, or the
// pseudo-velocities of the position correction): *v += j / m, and in oxyz w_c += (r_c x j_c) / I.
void bsRigidBody_ImpulseTo(const bsRigidBody* body, bsVec3 p, bsVec3 j, bsVec3* v, bsVec3* w);

// Moves the body for dt at linear velocity v and angular velocity w, then sets its angular velocity
// from its unchanged world angular momentum in the new orientation.
void bsRigidBody_Advance(bsRigidBody* body, bsVec3 v, bsVec3 w, double dt);
