! Masks set from code (xios_masks.xml; run by tests/python/test_xios_masks.py,
! which checks the file with numpy): grid g3d's mask_3d, grid g2d's mask_2d
! through a handle, grid glev's mask_1d, scalar hidden's mask=.false. (its
! grids are all masked), scalar shown's mask=.true., and the domain's
! mask_2d. The domain's rows are split among the ranks and its data carry a
! halo of one column on each side, so the grid masks (over the local points,
! as in XIOS) and the data differ in shape. Values: 100 k + 10 j + i + step
! (i, j global, k the level, 0-based); halo values are 1e30 and never written.
! mpiexec -n N ./xios_masks_model [: -n 1 foehn-server]
program xios_masks_model
  use, intrinsic :: iso_fortran_env, only: real64
  use mpi
  use xios
  implicit none
  integer, parameter :: ni = 8, nj_glo = 6, nlev = 3, nsteps = 2
  integer :: comm, ierr, rank, nranks, jbegin, nj, i, j, k, step
  real(real64), allocatable :: t3(:, :, :), t2(:, :), lat(:)
  real(real64) :: prof(nlev), lon(ni)
  logical, allocatable :: mask3(:, :, :), mask2(:, :), dmask(:, :)
  type(xios_grid) :: g2d

  call xios_initialize("masks", return_comm=comm)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Comm_size(comm, nranks, ierr)
  jbegin = rank * nj_glo / nranks
  nj = (rank + 1) * nj_glo / nranks - jbegin
  allocate(t3(0:ni + 1, nj, nlev), t2(0:ni + 1, nj), lat(nj))
  allocate(mask3(ni, nj, nlev), mask2(ni, nj), dmask(ni, nj))
  lon = [(10d0 * i, i = 0, ni - 1)]
  lat = [(-50d0 + 20d0 * (jbegin + j), j = 0, nj - 1)]
  do k = 1, nlev
    do j = 1, nj
      do i = 1, ni
        mask3(i, j, k) = mod((i - 1) + (jbegin + j - 1) + (k - 1), 4) /= 0
      end do
    end do
  end do
  do j = 1, nj
    do i = 1, ni
      mask2(i, j) = mod((i - 1) * (jbegin + j - 1), 3) /= 1
      dmask(i, j) = .not. (i - 1 == ni - 1 .and. jbegin + j - 1 == 0)
    end do
  end do

  call xios_context_initialize("masks", comm)
  call xios_set_domain_attr("box", ni_glo=ni, nj_glo=nj_glo, ibegin=0, ni=ni, jbegin=jbegin, nj=nj, &
                            data_dim=2, data_ibegin=-1, data_ni=ni + 2, lonvalue_1d=lon, latvalue_1d=lat, &
                            mask_2d=dmask)
  call xios_set_grid_attr("g3d", mask_3d=mask3)
  call xios_get_handle("g2d", g2d)
  call xios_set_attr(g2d, mask_2d=mask2)
  call xios_set_grid_attr("glev", mask_1d=[.true., .false., .true.])
  call xios_set_scalar_attr("hidden", value=2d0, mask=.false.)
  call xios_set_scalar_attr("shown", mask=.true.)
  call xios_close_context_definition()

  do step = 1, nsteps
    call xios_update_calendar(step)
    t3 = 1d30
    t2 = 1d30
    do k = 1, nlev
      do j = 1, nj
        do i = 1, ni
          t3(i, j, k) = 100d0 * (k - 1) + 10d0 * (jbegin + j - 1) + (i - 1) + step
        end do
      end do
      prof(k) = 100d0 * (k - 1) + step
    end do
    t2 = t3(:, :, 1)
    call xios_send_field("t3", t3)
    call xios_send_field("t2", t2)
    call xios_send_field("plain", t2)
    call xios_send_field("prof", prof)
    call xios_send_field("tbox_hidden", t2)
    call xios_send_field("s_hidden", step + 0.25d0)
    call xios_send_field("s_shown", step + 0.5d0)
  end do
  call xios_context_finalize()
  call MPI_Comm_free(comm, ierr)
  call xios_finalize()
  if (rank == 0) print "(a)", "xios_masks_model: OK"
end program xios_masks_model
