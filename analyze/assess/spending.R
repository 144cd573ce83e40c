# Error spending over the looks of an adaptive campaign (SPEC 7.5): how
# much of a one-sided error each look may use, so that over all its looks
# a test errs with probability at most the total.
#
# Group-sequential theory (Lan & DeMets, Biometrika 1983; Jennison &
# Turnbull, Group Sequential Methods, 2000, ch. 7 and 19). A test looked
# at K times has a standardised statistic Z_k at each look k whose
# information grows, t_1 < ... < t_K (fractions of the most it can have:
# here its runs / nrun_max). With independent increments, Z_k sqrt(t_k)
# is a Brownian motion at times t_k: under the null
#   Z_k = (Z_(k-1) sqrt(t_(k-1)) + N(0, t_k - t_(k-1))) / sqrt(t_k).
# A spending function alpha(t), rising from 0 to alpha(1) = alpha, says how
# much of the total error the looks up to information t may have used. The
# boundary c_k of look k is the one at which the first crossing happens
# there with exactly the error the spending function allows since the
# last look:
#   P(Z_1 < c_1, ..., Z_(k-1) < c_(k-1), Z_k >= c_k) = alpha(t_k) - alpha(t_(k-1)),
# found by the recursive numerical integration of Armitage, McPherson &
# Rowe (JRSS A 1969): the density of Z_k on the region where no look has
# crossed, carried from look to look on a grid (Simpson's rule), as R's
# gsDesign, ldbounds and rpact do. The nominal one-sided p of look k,
# 1 - Phi(c_k), is what the look's test compares its p-value with. The
# boundaries of looks 1..k depend on t_1..t_k only, so a look need not
# know how many follow (Lan-DeMets), and a test with fewer looks, or other
# information fractions, than another gets its own.
#
# Spending functions (one-sided total alpha, t in (0, 1]):
#   obrien-fleming  alpha(t) = 2 (1 - Phi(Phi^-1(1 - alpha / 2) / sqrt(t)))
#                   (Lan-DeMets O'Brien-Fleming type: almost nothing early,
#                   the last look near alpha)
#   pocock          alpha(t) = alpha log(1 + (e - 1) t)
#                   (Lan-DeMets Pocock type: about the same nominal level
#                   at every look)
#
# Pure functions:
#   spending(rule, alpha, t)              the error spent by information t
#   spending_bounds(t, alpha, rule)       boundaries and nominal p of looks at t
#   nominal_levels(histories, alpha, rule)  the last look's nominal p of many tests

SPENDING_RULES <- c("obrien-fleming", "pocock")

# The cumulative one-sided error spent by information fraction(s) T (capped at 1).
spending <- function(rule, alpha, t) {
  t <- pmin(t, 1)
  switch(rule,
         "obrien-fleming" = 2 * pnorm(qnorm(1 - alpha / 2) / sqrt(t), lower.tail = FALSE),
         "pocock" = alpha * log(1 + (exp(1) - 1) * t),
         stop("spending: unknown rule '", rule, "' (known: ", paste(SPENDING_RULES, collapse = ", "), ")"))
}

# Simpson's rule on [low, high] with about STEP between points: list(z, w).
simpson_grid <- function(low, high, step) {
  m <- max(2L, 2L * ceiling((high - low) / (2 * step)))
  h <- (high - low) / m
  w <- rep(c(2, 4), length.out = m + 1L)
  w[c(1L, m + 1L)] <- 1
  list(z = low + h * (0:m), w = w * h / 3)
}

# The boundaries of looks at information fractions T (strictly rising,
# in (0, 1]) that spend ALPHA (one-sided) by RULE: data.table(t, spent
# (cumulative), bound (c_k, on the Z scale), p (the nominal one-sided p,
# 1 - Phi(c_k)), crossed (the cumulative probability of a crossing under
# the null, by the integration: equals spent)). The grid is finer than
# the narrowest step between looks needs (the density of Z_k given
# Z_(k-1) has sd sqrt(t_k - t_(k-1)) / sqrt(t_(k-1)) in Z_(k-1)); the
# region below -LOW_Z (probability < 1e-15) is left out.
spending_bounds <- function(t, alpha, rule) {
  stopifnot(length(t) >= 1L, all(t > 0), all(t <= 1 + 1e-12), !is.unsorted(t, strictly = TRUE),
            alpha > 0, alpha < 0.5)
  low <- -8
  spent <- spending(rule, alpha, t)
  more <- diff(c(0, spent))
  bound <- crossed <- numeric(length(t))
  bound[1] <- qnorm(more[1], lower.tail = FALSE)
  crossed[1] <- more[1]
  if (length(t) > 1L) {
    narrow <- min(sqrt(diff(t)) / sqrt(t[-length(t)]))
    step <- min(0.02, narrow / 6)
    grid <- simpson_grid(low, bound[1], step)
    density <- dnorm(grid$z)
    for (k in 2:length(t)) {
      before <- sqrt(t[k - 1L])
      now <- sqrt(t[k])
      sd <- sqrt(t[k] - t[k - 1L])
      mass <- grid$w * density
      # log P(no crossing before, Z_k >= c): on the log scale, so that the
      # root is found however small the look's share (O'Brien-Fleming's first looks)
      log_cross <- function(c) {
        lp <- log(mass) + pnorm((c * now - grid$z * before) / sd, lower.tail = FALSE, log.p = TRUE)
        top <- max(lp)
        top + log(sum(exp(lp - top)))
      }
      bound[k] <- if (more[k] <= 0) Inf else
        uniroot(function(c) log_cross(c) - log(more[k]), c(-10, 40), tol = 1e-10)$root
      crossed[k] <- crossed[k - 1L] + exp(log_cross(bound[k]))
      if (k < length(t)) {
        next_grid <- simpson_grid(low, min(bound[k], -low), step)
        kernel <- dnorm(outer(next_grid$z * now, grid$z * before, "-") / sd) * (now / sd)
        density <- as.vector(kernel %*% mass)
        grid <- next_grid
      }
    }
  }
  data.table(t = t, spent = spent, bound = bound, p = pnorm(bound, lower.tail = FALSE), crossed = crossed)
}

# The nominal p of the last look of each of HISTORIES (a list of rising
# information fractions, one vector per test) spending ALPHA by RULE. Tests
# with the same history share the integration.
nominal_levels <- function(histories, alpha, rule) {
  keys <- vapply(histories, function(h) paste(format(h, digits = 15), collapse = " "), "")
  distinct <- unique(keys)
  p <- vapply(distinct, function(k) {
    h <- histories[[match(k, keys)]]
    b <- spending_bounds(h, alpha, rule)
    b$p[nrow(b)]
  }, 0)
  unname(p[match(keys, distinct)])
}
